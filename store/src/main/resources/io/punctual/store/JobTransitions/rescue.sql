-- transition: RESCUE, RESCUE_EXHAUSTED
-- The reaper's transitions RESCUE (RUNNING -> PENDING at a later run_at; the ids are :rescueIds)
-- and RESCUE_EXHAUSTED (RUNNING -> FAILED; :exhaustedIds), one statement for a batch. A job changes
-- only while it is still RUNNING with the same attempt number and still has not reported in since
-- :staleBefore, so a heartbeat or a completion that lands first wins. The lost attempt gets its
-- execution row (status LOST); should its worker report later, succeedRetryOrFail.sql refuses the
-- result and keeps that row. A rescued attempt gives back its limit and namespace slots in this
-- statement, matched by its attempt number.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts, :nextRunAtMs, :errors)
                  AS v(id, ms, attempt, next_run_ms, error)
), rescued AS (
    UPDATE jobs j
    SET status = 'PENDING', run_at = punctual_ms(v.next_run_ms), finished_at = NULL,
        last_error = v.error, heartbeat_at = NULL, updated_at = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:rescueIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt AND j.heartbeat_at < :staleBefore
    RETURNING j.id, j.scheduled_at, j.attempt, j.namespace, j.worker_id, j.started_at, v.error
), exhausted AS (
    UPDATE jobs j
    SET status = 'FAILED', finished_at = CAST(:now AS timestamptz),
        last_error = v.error, heartbeat_at = NULL, updated_at = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:exhaustedIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt AND j.heartbeat_at < :staleBefore
    RETURNING j.id, j.scheduled_at, j.attempt, j.namespace, j.worker_id, j.started_at, v.error
), lost AS (
    SELECT * FROM rescued UNION ALL SELECT * FROM exhausted
), freed AS (
    DELETE FROM limit_slots s USING lost l WHERE s.job_id = l.id AND s.attempt = l.attempt
), ns_freed AS (
    DELETE FROM namespace_slots s USING lost l WHERE s.job_id = l.id AND s.attempt = l.attempt
), recorded AS (
    INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                started_at, finished_at, duration_ms, error)
    SELECT r.id, r.scheduled_at, r.attempt, r.namespace, COALESCE(r.worker_id, 'unknown'), 'LOST',
           COALESCE(r.started_at, CAST(:now AS timestamptz)), CAST(:now AS timestamptz),
           CAST(EXTRACT(EPOCH FROM (CAST(:now AS timestamptz) - COALESCE(r.started_at, CAST(:now AS timestamptz)))) * 1000 AS bigint), r.error
    FROM lost r
    ON CONFLICT (job_id, job_scheduled_at, attempt) DO NOTHING
)
SELECT id FROM lost
