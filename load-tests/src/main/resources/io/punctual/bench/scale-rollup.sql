-- The statistics rollup of [:start, :end) loaded in one statement (bench scale): StatsRollup's own
-- query (rollup.sql, spliced in below as the CTE r) grouped by minute, namespace and type in SQL,
-- each histogram a dense array of counts up to its last non-empty bucket (StatsHistogram's stored
-- form). What StatsRollup.runOnce writes for the same attempts, row for row; bench scale checks
-- that on one hour of the loaded history before it relies on it.
INSERT INTO job_stats_minutes (minute, namespace, type, started, succeeded, failed, timed_out,
                               cancelled, lost, duration_ms, start_lag_ms)
WITH r AS MATERIALIZED (
/*rollup*/
), top AS (
    SELECT minute, namespace, type, kind, max(CAST(key AS integer)) AS top
    FROM r WHERE kind IN ('duration', 'lag') GROUP BY 1, 2, 3, 4
), hist AS (
    SELECT t.minute, t.namespace, t.type, t.kind,
           array_agg(CAST(LEAST(coalesce(h.n, 0), 2147483647) AS integer) ORDER BY g.b) AS counts
    FROM top t
    CROSS JOIN LATERAL generate_series(0, t.top) g(b)
    LEFT JOIN r h ON h.minute = t.minute AND h.namespace = t.namespace AND h.type = t.type
                 AND h.kind = t.kind AND h.key = CAST(g.b AS text)
    GROUP BY 1, 2, 3, 4
), k AS (
    SELECT minute, namespace, type,
           coalesce(sum(n) FILTER (WHERE kind = 'started'), 0) AS started,
           coalesce(sum(n) FILTER (WHERE kind = 'outcome' AND key = 'SUCCEEDED'), 0) AS succeeded,
           coalesce(sum(n) FILTER (WHERE kind = 'outcome' AND key = 'FAILED'), 0) AS failed,
           coalesce(sum(n) FILTER (WHERE kind = 'outcome' AND key = 'TIMED_OUT'), 0) AS timed_out,
           coalesce(sum(n) FILTER (WHERE kind = 'outcome' AND key = 'CANCELLED'), 0) AS cancelled,
           coalesce(sum(n) FILTER (WHERE kind = 'outcome' AND key = 'LOST'), 0) AS lost
    FROM r GROUP BY 1, 2, 3
)
SELECT k.minute, k.namespace, k.type, k.started, k.succeeded, k.failed, k.timed_out, k.cancelled,
       k.lost, coalesce(d.counts, '{}'), coalesce(l.counts, '{}')
FROM k
LEFT JOIN hist d ON d.minute = k.minute AND d.namespace = k.namespace AND d.type = k.type
                AND d.kind = 'duration'
LEFT JOIN hist l ON l.minute = k.minute AND l.namespace = k.namespace AND l.type = k.type
                AND l.kind = 'lag'
