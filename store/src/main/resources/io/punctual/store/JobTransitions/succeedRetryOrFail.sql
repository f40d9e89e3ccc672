-- Applies finished attempts in one statement (FinishStatement assembles it): one guarded UPDATE
-- per group of attempts the batch has, each from its own file (finishSucceeded.sql,
-- finishRetried.sql, finishFailed.sql, and finishSucceededUnwritten.sql,
-- finishRetriedUnwritten.sql, finishFailedUnwritten.sql for attempts whose claims were never
-- written), put in as CTEs at "updates", their ids UNION ALL'ed at "applied". A group the batch does
-- not have is left out, not run with an empty array: a batch usually has one group, and planning
-- the other five over the partitioned jobs cost PostgreSQL about a third of this statement's
-- planning (docs/performance-log.md, the ninth machine).
--
-- A job row changes only while it is still RUNNING with the same attempt number (fencing), or, for
-- a claim never written, still PENDING with the attempt before it. Every attempt gets its execution
-- row either way, so a refused (stale) attempt is still on record; an attempt already recorded
-- (e.g. as LOST by the reaper) keeps its row. Returns the ids whose job row changed. id = ANY(...)
-- makes the primary key the way into jobs (see keyLookupsOnly.sql). An execution's started_at is
-- when its handler started, as the worker measured it (its end minus its duration): for a job
-- claimed ahead of its run_at (worker.claimAhead) that is run_at, not the claim. An applied attempt
-- gives back the limit slot and the namespace slot it holds (limit_slots, V14; namespace_slots,
-- V27) in this statement, matched by its attempt number, so a refused (stale) attempt never frees
-- the slot of the attempt that replaced it. The worker never writes an unwritten attempt's claim
-- once its result is on its way, so the two guards cannot both miss.
WITH v AS (
    SELECT *
    FROM unnest(:ids, :scheduledMs, :attempts, :nextRunAtMs, :execStatuses, :finishedAtMs,
                :durationsMs, :errors, :stackTraces, :results)
         AS v(id, ms, attempt, next_run_ms, exec_status, finished_ms, duration_ms, error,
              stack_trace, result)
)/* updates */, applied AS (
    /* applied */
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
    -- j is the row as it was before this statement (all parts share one snapshot). A refused
    -- attempt whose number another worker's running attempt holds on the job row leaves that
    -- number's row to it: two holders of one number come only from an unwritten claim whose
    -- lease lapsed before a death watch saw its worker (docs/architecture.md, the claim written
    -- late), and the row must say who ran the attempt the job row ends with. Nor does an end
    -- refused while the job row is still PENDING with the attempt before (an unwritten claim's
    -- attempt stopped, or refused): that number was never taken on the job row, and the next
    -- claim takes it, whose row it is.
    INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                started_at, finished_at, duration_ms, error, stack_trace, result)
    SELECT v.id, j.scheduled_at, v.attempt, j.namespace,
           COALESCE(CAST(:workerId AS text), j.worker_id, 'unknown'), v.exec_status,
           punctual_ms(v.finished_ms - v.duration_ms),
           punctual_ms(v.finished_ms), v.duration_ms, v.error, v.stack_trace, CAST(v.result AS jsonb)
    FROM v
    JOIN jobs j ON j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
               AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
    WHERE NOT (j.status = 'RUNNING' AND j.attempt = v.attempt
               AND j.worker_id IS DISTINCT FROM COALESCE(CAST(:workerId AS text), j.worker_id))
      AND NOT (j.status = 'PENDING' AND j.attempt = v.attempt - 1
               AND v.id NOT IN (SELECT id FROM applied))
    ON CONFLICT (job_id, job_scheduled_at, attempt) DO NOTHING
)
SELECT id FROM applied
