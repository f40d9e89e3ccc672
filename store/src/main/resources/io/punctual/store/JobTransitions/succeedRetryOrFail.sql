-- transition: SUCCEED, RETRY, FAIL, SUCCEED_UNWRITTEN, RETRY_UNWRITTEN, FAIL_UNWRITTEN
-- Applies finished attempts in one statement, one guarded UPDATE per target state (the ids of
-- each group are :succeedIds, :retryIds and :failIds). A job row changes only while it is still
-- RUNNING with the same attempt number (fencing). Every attempt gets its execution row either way,
-- so a refused (stale) attempt is still on record; an attempt already recorded (e.g. as LOST by
-- the reaper) keeps its row. Returns the ids whose job row changed. id = ANY(...) makes the
-- primary key the way into jobs (see keyLookupsOnly.sql). An execution's started_at is when its
-- handler started, as the worker measured it (its end minus its duration): for a job claimed ahead
-- of its run_at (worker.claimAhead) that is run_at, not the claim. An applied attempt gives back
-- the limit slot and the namespace slot it holds (limit_slots, V14; namespace_slots, V27) in this
-- statement, matched by its attempt number, so a refused (stale) attempt never frees the slot of
-- the attempt that replaced it.
--
-- An attempt whose claim the worker never wrote (peekPlain.sql; it ended within
-- worker.claimWriteAfter) is in :*UnwrittenIds instead: its job row is still PENDING with the
-- attempt before it, and the claim and the end are one write (the *_UNWRITTEN transitions), guarded
-- by that attempt number: attempt, worker and start take the attempt's values. The worker never
-- writes such an attempt's claim once its result is on its way, so the two guards cannot both miss.
WITH v AS (
    SELECT *
    FROM unnest(:ids, :scheduledMs, :attempts, :nextRunAtMs, :execStatuses, :finishedAtMs,
                :durationsMs, :errors, :stackTraces, :results)
         AS v(id, ms, attempt, next_run_ms, exec_status, finished_ms, duration_ms, error,
              stack_trace, result)
), succeeded AS (
    UPDATE jobs j
    SET status = 'SUCCEEDED', finished_at = punctual_ms(v.finished_ms),
        result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
    FROM v
    WHERE j.id = ANY(:succeedIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt
    RETURNING j.id
), retried AS (
    UPDATE jobs j
    SET status = 'PENDING', run_at = punctual_ms(v.next_run_ms), finished_at = NULL,
        result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
    FROM v
    WHERE j.id = ANY(:retryIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt
    RETURNING j.id
), failed AS (
    UPDATE jobs j
    SET status = 'FAILED', finished_at = punctual_ms(v.finished_ms),
        result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
    FROM v
    WHERE j.id = ANY(:failIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'RUNNING' AND j.attempt = v.attempt
    RETURNING j.id
), succeeded_unwritten AS (
    UPDATE jobs j
    SET status = 'SUCCEEDED', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
        started_at = punctual_ms(v.finished_ms - v.duration_ms), finished_at = punctual_ms(v.finished_ms),
        result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
    FROM v
    WHERE j.id = ANY(:succeedUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
    RETURNING j.id
), retried_unwritten AS (
    UPDATE jobs j
    SET status = 'PENDING', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
        started_at = punctual_ms(v.finished_ms - v.duration_ms), run_at = punctual_ms(v.next_run_ms),
        finished_at = NULL, result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL,
        updated_at = :now
    FROM v
    WHERE j.id = ANY(:retryUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
    RETURNING j.id
), failed_unwritten AS (
    UPDATE jobs j
    SET status = 'FAILED', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
        started_at = punctual_ms(v.finished_ms - v.duration_ms), finished_at = punctual_ms(v.finished_ms),
        result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
    FROM v
    WHERE j.id = ANY(:failUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
    RETURNING j.id
), applied AS (
    SELECT id FROM succeeded UNION ALL SELECT id FROM retried UNION ALL SELECT id FROM failed
    UNION ALL SELECT id FROM succeeded_unwritten UNION ALL SELECT id FROM retried_unwritten
    UNION ALL SELECT id FROM failed_unwritten
), freed AS (
    -- Not even looked for while no attempt holds a slot (the EXISTS runs once, before the join):
    -- a slot is taken by its attempt's claim, committed before that attempt could end.
    DELETE FROM limit_slots s
    USING v
    WHERE s.job_id = v.id AND s.attempt = v.attempt
      AND EXISTS (SELECT 1 FROM limit_slots)
      AND v.id IN (SELECT id FROM applied)
), ns_freed AS (
    DELETE FROM namespace_slots s
    USING v
    WHERE s.job_id = v.id AND s.attempt = v.attempt
      AND EXISTS (SELECT 1 FROM namespace_slots)
      AND v.id IN (SELECT id FROM applied)
), recorded AS (
    -- j is the row as it was before this statement (all parts share one snapshot).
    INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                started_at, finished_at, duration_ms, error, stack_trace, result)
    SELECT v.id, j.scheduled_at, v.attempt, j.namespace,
           COALESCE(CAST(:workerId AS text), j.worker_id, 'unknown'), v.exec_status,
           punctual_ms(v.finished_ms - v.duration_ms),
           punctual_ms(v.finished_ms), v.duration_ms, v.error, v.stack_trace, CAST(v.result AS jsonb)
    FROM v
    JOIN jobs j ON j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
               AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
    ON CONFLICT (job_id, job_scheduled_at, attempt) DO NOTHING
)
SELECT id FROM applied
