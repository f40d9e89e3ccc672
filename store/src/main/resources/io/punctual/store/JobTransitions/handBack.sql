-- transition: HAND_BACK
-- A worker gives back attempts it holds and will not finish (RUNNING -> PENDING, due now), one
-- statement for a batch: those still running at the end of its shutdown grace, and those it finds
-- committed after a claim whose commit it could not confirm (docs/state-machine.md). A job changes
-- only while it is still RUNNING with the same attempt number and this worker's id, so a result,
-- a cancel or a rescue that landed first wins. The handoff does not use up one of the job's
-- attempts: max_attempts goes up by one with the attempt number, so every test of the budget
-- (claim.sql's attempt < max_attempts, the worker's and the reaper's decisions, a rerun) keeps
-- reading the same two columns. The attempt gets its execution row (status HANDED_BACK); should
-- its handler report later, succeedRetryOrFail.sql refuses the result and keeps that row. The
-- attempt gives back its limit and namespace slots in this statement, matched by its attempt
-- number. Returns the jobs moved, for the caller to put into Redis and to release their holds.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts, :durationsMs, :errors)
                  AS v(id, ms, attempt, duration_ms, error)
), handed AS (
    UPDATE jobs j
    SET status = 'PENDING', run_at = CAST(:now AS timestamptz), finished_at = NULL,
        max_attempts = j.max_attempts + 1, heartbeat_at = NULL,
        updated_at = CAST(:now AS timestamptz)
    FROM v
    WHERE j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt AND j.worker_id = :workerId
    RETURNING j.id, j.scheduled_at, j.attempt, j.namespace, j.priority, j.run_at, j.started_at,
              v.duration_ms, v.error
), freed AS (
    DELETE FROM limit_slots s USING handed h WHERE s.job_id = h.id AND s.attempt = h.attempt
), ns_freed AS (
    DELETE FROM namespace_slots s USING handed h WHERE s.job_id = h.id AND s.attempt = h.attempt
), recorded AS (
    INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                started_at, finished_at, duration_ms, error)
    SELECT h.id, h.scheduled_at, h.attempt, h.namespace, :workerId, 'HANDED_BACK',
           COALESCE(h.started_at, CAST(:now AS timestamptz)), CAST(:now AS timestamptz),
           COALESCE(h.duration_ms, CAST(EXTRACT(EPOCH FROM (CAST(:now AS timestamptz)
               - COALESCE(h.started_at, CAST(:now AS timestamptz)))) * 1000 AS bigint)), h.error
    FROM handed h
    ON CONFLICT (job_id, job_scheduled_at, attempt) DO NOTHING
)
SELECT id, namespace, priority, run_at, attempt FROM handed
