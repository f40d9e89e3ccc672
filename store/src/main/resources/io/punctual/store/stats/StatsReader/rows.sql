-- The rolled-up rows of job_stats_{unit}s (minutes, hours or days; {unit} is put in by StatsReader)
-- of some namespaces in [:from, :to) (whole hours or UTC days for those; the primary key leads
-- with namespace and {unit}). Every namespace: rowsAll.sql. The histograms as text, parsed by
-- StatsReader.addText.
SELECT {unit} AS at, namespace, type, started, succeeded, failed, timed_out, cancelled, lost,
       CAST(duration_ms AS text) AS duration_ms, CAST(start_lag_ms AS text) AS start_lag_ms
FROM job_stats_{unit}s
WHERE namespace = ANY(:namespaces)
  AND {unit} >= :from AND {unit} < :to
