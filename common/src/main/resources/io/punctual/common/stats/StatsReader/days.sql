-- The rolled-up days of some namespaces in [:from, :to) (whole UTC days; the primary key leads with
-- namespace and day). Every namespace: daysAll.sql. Columns as minutes.sql's.
SELECT day AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_days
WHERE namespace = ANY(:namespaces)
  AND day >= :from AND day < :to
