-- The rolled-up minutes of some namespaces in [:from, :to) (the primary key leads with namespace
-- and minute). :all: every namespace (a key of "*" asking by namespace).
SELECT minute, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       duration_ms, start_lag_ms
FROM job_stats_minutes
WHERE (:all OR namespace = ANY(:namespaces))
  AND minute >= :from AND minute < :to
