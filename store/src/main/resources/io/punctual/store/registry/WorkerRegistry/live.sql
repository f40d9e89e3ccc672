-- The live workers serving a namespace (not stopped, heard of within STALE_AFTER_BEATS heartbeat
-- intervals), with the job types they have handlers for (null: not said), for a job's diagnosis.
SELECT id, types FROM workers
WHERE :namespace = ANY(namespaces)
  AND stopped_at IS NULL
  AND heartbeat_at + heartbeat_interval_ms * :staleAfterBeats * interval '1 millisecond' >= :now
ORDER BY id
LIMIT 1000
