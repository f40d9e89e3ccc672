-- Running attempts whose worker has not reported in since :staleBefore, oldest heartbeat first,
-- one page after the cursor (:afterHeartbeat, :afterId): the reaper pages on past attempts it
-- leaves alone (their lease is still held), so a page full of them cannot hide later ones. The
-- running jobs' index (jobs_running_by_namespace, V36) yields every running attempt, a few
-- thousand at most, which this filters and sorts.
SELECT * FROM jobs
WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL
  AND heartbeat_at < :staleBefore
  AND (heartbeat_at, id) > (CAST(:afterHeartbeat AS timestamptz), CAST(:afterId AS uuid))
ORDER BY heartbeat_at, id
LIMIT :limit
