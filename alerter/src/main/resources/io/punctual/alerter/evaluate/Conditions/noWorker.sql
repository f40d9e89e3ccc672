-- no_worker: whether the namespace has PENDING jobs due now, and whether a worker serving it is
-- alive (not stopped, heard of within three of its heartbeat intervals).
SELECT EXISTS (SELECT 1 FROM jobs
               WHERE status = 'PENDING' AND namespace = :namespace AND run_at <= :now) AS due,
       EXISTS (SELECT 1 FROM workers w
               WHERE :namespace = ANY(w.namespaces) AND w.stopped_at IS NULL
                 AND w.heartbeat_at > CAST(:now AS timestamptz)
                                      - 3 * w.heartbeat_interval_ms * interval '1 millisecond')
           AS served
