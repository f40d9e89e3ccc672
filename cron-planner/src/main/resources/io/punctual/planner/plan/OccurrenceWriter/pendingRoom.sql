-- Room under quota.maxPending of the given namespaces that have one: maxPending minus their
-- PENDING jobs, each counted up to its maxPending (an index-only walk that stops there, as the
-- API's count does), so a full namespace costs no more than its quota. Namespaces without a
-- maxPending are not returned (no limit).
SELECT n.name,
       n.max_pending - (SELECT count(*) FROM (SELECT 1 FROM jobs j
                                               WHERE j.namespace = n.name AND j.status = 'PENDING'
                                               LIMIT n.max_pending) p) AS room
FROM namespaces n
WHERE n.name = ANY(:names) AND n.max_pending IS NOT NULL
