-- The running attempts of the workers :workerIds (dead ones, for the reaper's DeathWatch), oldest
-- heartbeat first. The running jobs' index (jobs_running_by_namespace, V36) serves this: it holds
-- only the running attempts, a few thousand at most, which the worker filter walks.
SELECT * FROM jobs
WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL
  AND worker_id = ANY(:workerIds)
ORDER BY heartbeat_at, id
LIMIT :limit
