-- The reaper's transitions RESCUE (RUNNING -> PENDING at a later run_at) and RESCUE_EXHAUSTED
-- (RUNNING -> FAILED), one statement for a batch. A job changes only while it is still RUNNING
-- with the same attempt number and still has not reported in since :staleBefore, so a heartbeat
-- or a completion that lands first wins. The lost attempt gets its execution row (status LOST);
-- should its worker report later, finish.sql refuses the result and keeps that row.
WITH v AS (
    SELECT *
    FROM unnest(:ids, :scheduledMs, :attempts, :nextStates, :nextRunAtMs, :errors)
         AS v(id, ms, attempt, next_state, next_run_ms, error)
), rescued AS (
    UPDATE jobs j
    SET status       = v.next_state,
        run_at       = CASE WHEN v.next_state = 'PENDING' THEN punctual_ms(v.next_run_ms) ELSE j.run_at END,
        last_error   = v.error,
        finished_at  = CASE WHEN v.next_state = 'PENDING' THEN NULL ELSE CAST(:now AS timestamptz) END,
        heartbeat_at = NULL,
        updated_at   = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:ids)
      AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt
      AND j.heartbeat_at < :staleBefore
    RETURNING j.id, j.scheduled_at, j.attempt, j.namespace, j.worker_id, j.started_at, v.error
), recorded AS (
    INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                started_at, finished_at, duration_ms, error)
    SELECT r.id, r.scheduled_at, r.attempt, r.namespace, COALESCE(r.worker_id, 'unknown'), 'LOST',
           COALESCE(r.started_at, CAST(:now AS timestamptz)), CAST(:now AS timestamptz),
           CAST(EXTRACT(EPOCH FROM (CAST(:now AS timestamptz) - COALESCE(r.started_at, CAST(:now AS timestamptz)))) * 1000 AS bigint), r.error
    FROM rescued r
    ON CONFLICT (job_id, job_scheduled_at, attempt) DO NOTHING
)
SELECT id FROM rescued
