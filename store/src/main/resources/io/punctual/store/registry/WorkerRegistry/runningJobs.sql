-- The running attempts of a namespace, by worker (the state index on heartbeat_at serves this).
SELECT worker_id, id, type, attempt, started_at, heartbeat_at
FROM jobs
WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL
  AND namespace = :namespace
  AND worker_id = ANY(:workerIds)
ORDER BY worker_id, started_at
