-- The rolled-up minutes of some namespaces in [:from, :to) (the primary key leads with namespace
-- and minute). Every namespace: minutesAll.sql.
SELECT minute AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_minutes
WHERE namespace = ANY(:namespaces)
  AND minute >= :from AND minute < :to
