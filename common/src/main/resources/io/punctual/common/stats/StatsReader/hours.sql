-- The rolled-up hours of some namespaces in [:from, :to) (whole hours; the primary key leads with
-- namespace and hour). Every namespace: hoursAll.sql. Columns as minutes.sql's.
SELECT hour AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_hours
WHERE namespace = ANY(:namespaces)
  AND hour >= :from AND hour < :to
