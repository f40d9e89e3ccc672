-- One rolled-up minute of a namespace and type (another reaper may have written it meanwhile: the
-- values computed from the same rows win either way).
INSERT INTO job_stats_minutes (minute, namespace, type, started, succeeded, failed, timed_out,
                               cancelled, lost, duration_ms, start_lag_ms)
VALUES (:minute, :namespace, :type, :started, :succeeded, :failed, :timedOut, :cancelled, :lost,
        :durationMs, :startLagMs)
ON CONFLICT (namespace, minute, type) DO UPDATE
SET started = EXCLUDED.started, succeeded = EXCLUDED.succeeded, failed = EXCLUDED.failed,
    timed_out = EXCLUDED.timed_out, cancelled = EXCLUDED.cancelled, lost = EXCLUDED.lost,
    duration_ms = EXCLUDED.duration_ms, start_lag_ms = EXCLUDED.start_lag_ms
