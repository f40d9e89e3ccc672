-- failure_rate: the jobs of the rule's scope that ended SUCCEEDED or FAILED since :windowStart
-- (scheduled after :since, which bounds the scan), and how many of them FAILED.
SELECT count(*) AS total, count(*) FILTER (WHERE status = 'FAILED') AS failed
FROM jobs
WHERE namespace = :namespace AND status IN ('SUCCEEDED', 'FAILED')
  AND scheduled_at > :since AND finished_at >= :windowStart
  AND (CAST(:type AS text) IS NULL OR type = :type)
