-- transition: UNBLOCK, SKIP
-- UNBLOCK (BLOCKED -> PENDING; the ids are :unblockIds) and SKIP (BLOCKED -> SKIPPED, final, with
-- the reason; :skipIds), for jobs this transaction holds locked and has judged. Guarded by status
-- all the same.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :reasons) AS v(id, ms, reason)
), unblocked AS (
    UPDATE jobs j
    SET status = 'PENDING', finished_at = NULL, last_error = NULL,
        updated_at = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:unblockIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'BLOCKED'
    RETURNING j.id, j.namespace, j.priority, j.run_at, j.status
), skipped AS (
    UPDATE jobs j
    SET status = 'SKIPPED', finished_at = CAST(:now AS timestamptz), last_error = v.reason,
        updated_at = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:skipIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'BLOCKED'
    RETURNING j.id, j.namespace, j.priority, j.run_at, j.status
)
SELECT * FROM unblocked UNION ALL SELECT * FROM skipped
