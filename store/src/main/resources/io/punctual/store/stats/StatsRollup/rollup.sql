-- The attempts of [:start, :end) by minute, namespace and type, as rows (kind, minute, namespace,
-- type, key, n): kind 'outcome' (key: the execution status) and the histogram buckets (key: the
-- bucket, StatsHistogram's formula) 'duration' and 'lag' (first attempts only: started_at -
-- scheduled_at) by the minute the attempt ended; 'started' by the minute it started, counting the
-- attempts still running (their job row) as well as the recorded ones. job_executions is read by
-- its BRIN index on finished_at (V16); the partition bound keeps later days out.
WITH x AS (
    SELECT x.namespace, j.type, x.status, x.attempt, x.started_at, x.finished_at, x.duration_ms,
           x.job_scheduled_at
    FROM job_executions x
    JOIN jobs j ON j.id = x.job_id AND j.scheduled_at = x.job_scheduled_at
    WHERE x.finished_at >= :start
      AND x.job_scheduled_at < CAST(:end AS timestamptz) + interval '1 second'
), ended AS (
    SELECT * FROM x WHERE finished_at < :end
), started AS (
    SELECT namespace, type, started_at FROM x
    WHERE started_at >= :start AND started_at < :end
    UNION ALL
    SELECT namespace, type, started_at FROM jobs
    WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL
      AND started_at >= :start AND started_at < :end
)
SELECT 'outcome' AS kind, date_trunc('minute', finished_at) AS minute, namespace, type,
       status AS key, count(*) AS n
FROM ended GROUP BY 2, 3, 4, 5
UNION ALL
SELECT 'duration', date_trunc('minute', finished_at), namespace, type,
       CAST(LEAST(127, CASE WHEN duration_ms < 1 THEN 0
                            ELSE 1 + floor(4 * ln(duration_ms) / ln(2)) END) AS text),
       count(*)
FROM ended WHERE duration_ms IS NOT NULL GROUP BY 2, 3, 4, 5
UNION ALL
SELECT 'lag', date_trunc('minute', finished_at), namespace, type,
       CAST(LEAST(127, CASE WHEN lag_ms < 1 THEN 0 ELSE 1 + floor(4 * ln(lag_ms) / ln(2)) END) AS text),
       count(*)
FROM (SELECT *, EXTRACT(EPOCH FROM (started_at - job_scheduled_at)) * 1000 AS lag_ms
      FROM ended WHERE attempt = 1) f
GROUP BY 2, 3, 4, 5
UNION ALL
SELECT 'started', date_trunc('minute', started_at), namespace, type, '', count(*)
FROM started GROUP BY 2, 3, 4
