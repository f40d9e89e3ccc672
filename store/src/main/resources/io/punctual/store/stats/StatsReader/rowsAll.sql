-- The rolled-up rows of job_stats_{unit}s of every namespace in [:from, :to) (a key of "*" asking
-- by namespace): a statement of its own, so that the primary key (namespace, {unit}, type) serves
-- it by a skip scan over the namespaces instead of a scan of the whole table. Columns as rows.sql's.
SELECT {unit} AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_{unit}s
WHERE {unit} >= :from AND {unit} < :to
