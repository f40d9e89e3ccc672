-- Marks running attempts alive; returns those still RUNNING with that attempt. A job missing from
-- the answer was cancelled or rescued: its worker must stop the handler.
-- Rows another transaction holds locked are skipped, not waited for: most often they are this
-- worker's own results being written (succeedRetryOrFail.sql), which lock the same rows in another order, and
-- waiting would let the two statements deadlock (PostgreSQL then aborts one of them after
-- deadlock_timeout, a second during which results wait). A skipped row counts as alive when it is
-- RUNNING with that attempt in this statement's snapshot; its heartbeat_at is written at the next
-- beat (a cancel or rescue committed meanwhile is seen then).
WITH r AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts) AS r(id, ms, attempt)
), current_attempts AS (
    SELECT j.id, j.scheduled_at
    FROM jobs j
    JOIN r ON j.id = r.id AND j.scheduled_at = punctual_ms(r.ms) AND j.attempt = r.attempt
    WHERE j.id = ANY(:ids)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING'
), unlocked AS (
    SELECT j.id, j.scheduled_at
    FROM jobs j
    JOIN current_attempts c ON j.id = c.id AND j.scheduled_at = c.scheduled_at
    WHERE j.id = ANY(:ids)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
    FOR NO KEY UPDATE OF j SKIP LOCKED
), beat AS (
    UPDATE jobs j
    SET heartbeat_at = :now
    FROM unlocked u
    WHERE j.id = ANY(:ids)
      AND j.id = u.id AND j.scheduled_at = u.scheduled_at
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING'
)
SELECT id FROM current_attempts
