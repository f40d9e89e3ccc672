-- transition: CLAIM
-- Confirms Redis claims: PENDING -> RUNNING with attempt + 1 (the fencing token), worker and start
-- time on the job row. Jobs no longer PENDING (cancelled, or claimed by someone else) are simply
-- not returned. The attempt's execution row is written when it ends (succeedRetryOrFail.sql); until then the
-- job row is the record of the running attempt. The BETWEEN bounds (the batch's earliest and
-- latest scheduled times) let the planner keep only the partitions involved; id = ANY(...) makes
-- the primary key the way in (one probe per job, see keyLookupsOnly.sql). A job is claimed at most
-- a second before its run_at: a worker claims up to worker.claimAhead (at most PT1S) ahead and its
-- handler starts at run_at, never before (JobExecutor waits), so started_at is the later of the
-- claim and run_at: when the handler starts. The same bound keeps a queue entry that outlived a
-- retry (a reconciliation racing the attempt) from claiming the job long before its new run_at.
-- The COALESCE (run_at is never null) keeps this from implying the pending index's predicate.
UPDATE jobs j
SET status = 'RUNNING', attempt = j.attempt + 1, worker_id = :workerId,
    started_at = GREATEST(j.run_at, CAST(:now AS timestamptz)),
    heartbeat_at = :now, updated_at = :now
WHERE j.id = ANY(:ids)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'PENDING' AND j.attempt < j.max_attempts
  AND COALESCE(j.run_at, CAST(:now AS timestamptz)) <= CAST(:now AS timestamptz) + interval '1 second'
RETURNING j.*
