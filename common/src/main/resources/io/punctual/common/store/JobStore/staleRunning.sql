-- Running attempts whose worker has not reported in since :staleBefore, oldest heartbeat first
-- (the running-state index on heartbeat_at serves this). The reaper rescues them.
SELECT * FROM jobs
WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL
  AND heartbeat_at < :staleBefore
ORDER BY heartbeat_at
LIMIT :limit
