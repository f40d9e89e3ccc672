-- The rolled-up days of every namespace in [:from, :to): a statement of its own for the same
-- reason as minutesAll.sql (a skip scan of the primary key over the namespaces).
SELECT day AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_days
WHERE day >= :from AND day < :to
