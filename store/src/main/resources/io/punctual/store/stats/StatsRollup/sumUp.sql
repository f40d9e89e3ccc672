-- The rows of job_stats_{source}s in [:from, :to) (whole {unit}s, UTC) summed per {unit}, namespace
-- and type into job_stats_{unit}s: minutes into hours, and hours into days. {unit} and {source} are
-- put in by StatsRollup ("hour" and "minute", or "day" and "hour").
-- The counts are added, each histogram added bucket by bucket (as StatsHistogram merges them) and
-- stored as the source's are, a dense array up to its last non-empty bucket. The non-empty buckets
-- are taken apart first (a minute's array is mostly zeros), then each {unit}'s array is laid out
-- again. Another reaper may have written a {unit} meanwhile: the same rows give the same sums.
-- Truncated in UTC whatever the session's time zone (a zone half an hour off UTC would otherwise
-- key hours at :30, where the reader does not look).
INSERT INTO job_stats_{unit}s ({unit}, namespace, type, started, succeeded, failed, timed_out,
                             cancelled, lost, duration_ms, start_lag_ms)
WITH m AS MATERIALIZED (
    SELECT date_trunc('{unit}', {source}, 'UTC') AS at, namespace, type, started, succeeded,
           failed, timed_out, cancelled, lost, duration_ms, start_lag_ms
    FROM job_stats_{source}s
    WHERE {source} >= :from AND {source} < :to
), k AS (
    SELECT at, namespace, type, sum(started) AS started, sum(succeeded) AS succeeded,
           sum(failed) AS failed, sum(timed_out) AS timed_out, sum(cancelled) AS cancelled,
           sum(lost) AS lost
    FROM m GROUP BY 1, 2, 3
), b AS (
    SELECT m.at, m.namespace, m.type, u.kind, u.i, CAST(sum(u.n) AS bigint) AS n
    FROM m
    CROSS JOIN LATERAL (
        SELECT 'duration' AS kind, d.i, d.n
        FROM unnest(m.duration_ms) WITH ORDINALITY d(n, i) WHERE d.n <> 0
        UNION ALL
        SELECT 'lag', l.i, l.n
        FROM unnest(m.start_lag_ms) WITH ORDINALITY l(n, i) WHERE l.n <> 0
    ) u
    GROUP BY 1, 2, 3, 4, 5
), hist AS (
    SELECT t.at, t.namespace, t.type, t.kind,
           array_agg(coalesce(b.n, 0) ORDER BY g.i) AS counts
    FROM (SELECT at, namespace, type, kind, max(i) AS top FROM b GROUP BY 1, 2, 3, 4) t
    CROSS JOIN LATERAL generate_series(1, t.top) g(i)
    LEFT JOIN b ON b.at = t.at AND b.namespace = t.namespace AND b.type = t.type
               AND b.kind = t.kind AND b.i = g.i
    GROUP BY 1, 2, 3, 4
)
SELECT k.at, k.namespace, k.type, k.started, k.succeeded, k.failed, k.timed_out, k.cancelled,
       k.lost, coalesce(d.counts, '{}'), coalesce(l.counts, '{}')
FROM k
LEFT JOIN hist d ON d.at = k.at AND d.namespace = k.namespace AND d.type = k.type
                AND d.kind = 'duration'
LEFT JOIN hist l ON l.at = k.at AND l.namespace = k.namespace AND l.type = k.type
                AND l.kind = 'lag'
ON CONFLICT (namespace, {unit}, type) DO UPDATE
SET started = EXCLUDED.started, succeeded = EXCLUDED.succeeded, failed = EXCLUDED.failed,
    timed_out = EXCLUDED.timed_out, cancelled = EXCLUDED.cancelled, lost = EXCLUDED.lost,
    duration_ms = EXCLUDED.duration_ms, start_lag_ms = EXCLUDED.start_lag_ms
