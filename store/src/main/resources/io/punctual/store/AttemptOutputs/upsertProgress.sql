-- The latest progress of each attempt of the batch (one row per attempt; a report older than the
-- stored one changes nothing). Not fenced: a late report of an attempt that ended only updates that
-- attempt's row, which no other attempt reads.
INSERT INTO job_progress AS p (job_id, attempt, job_scheduled_at, namespace, percent, done, total,
                               updated_at)
SELECT v.id, v.attempt, punctual_ms(v.ms), v.namespace, CAST(v.percent AS real), v.done, v.total,
       punctual_ms(v.at_ms)
FROM unnest(:ids, :scheduledMs, :attempts, :namespaces, :percents, :dones, :totals, :atMs)
     AS v(id, ms, attempt, namespace, percent, done, total, at_ms)
ON CONFLICT (job_id, attempt) DO UPDATE
SET percent = EXCLUDED.percent, done = EXCLUDED.done, total = EXCLUDED.total,
    updated_at = EXCLUDED.updated_at
WHERE p.updated_at <= EXCLUDED.updated_at
