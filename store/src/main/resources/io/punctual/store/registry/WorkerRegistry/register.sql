-- A worker starts (or restarts under the same id): its row is (re)written. types: the job types it
-- has a handler for (null from a worker that does not say).
INSERT INTO workers (id, host, pid, namespaces, concurrency, heartbeat_interval_ms, running,
                     started_at, heartbeat_at, stopped_at, types)
VALUES (:id, :host, :pid, :namespaces, :concurrency, :heartbeatIntervalMs, 0, :now, :now, NULL,
        :types)
ON CONFLICT (id) DO UPDATE
SET host = EXCLUDED.host, pid = EXCLUDED.pid, namespaces = EXCLUDED.namespaces,
    concurrency = EXCLUDED.concurrency, heartbeat_interval_ms = EXCLUDED.heartbeat_interval_ms,
    running = 0, started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at,
    stopped_at = NULL, types = EXCLUDED.types
