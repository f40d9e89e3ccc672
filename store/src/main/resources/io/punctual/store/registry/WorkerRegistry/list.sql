-- Workers serving a namespace, live ones first, most recently started first.
SELECT id, host, pid, namespaces, concurrency, heartbeat_interval_ms, started_at,
       heartbeat_at, stopped_at
FROM workers
WHERE :namespace = ANY(namespaces)
ORDER BY stopped_at IS NOT NULL, started_at DESC, id
LIMIT :limit
