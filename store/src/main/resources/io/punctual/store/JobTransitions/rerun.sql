-- transition: RERUN_FAILED, RERUN_CANCELLED, RERUN_SKIPPED
-- An operator's retry of jobs of one namespace that ended FAILED, CANCELLED or SKIPPED: back to
-- PENDING, due now (or at the scheduled time of a job cancelled before it was due), with at least
-- one attempt left (max_attempts raised to attempt + 1 when the budget was used up; the next claim
-- makes it attempt + 1, so the history of attempts is kept). last_error stays until the new attempt
-- ends; result, worker and times of the last attempt are cleared. SUCCEEDED jobs are left alone.
-- Returns the jobs moved (others had changed meanwhile, or are not of the namespace). The state
-- check is "IS TRUE", checked on the rows found by key: a plain "status IN (...)" proves the
-- predicate of jobs_final_by_namespace (V6), and in a partition not yet analyzed the planner may
-- read every final job of the namespace there through it rather than probe the keys
-- (docs/architecture.md, "Rules the code keeps").
UPDATE jobs j
SET status = 'PENDING', run_at = GREATEST(CAST(:now AS timestamptz), j.scheduled_at),
    max_attempts = GREATEST(j.max_attempts, j.attempt + 1), finished_at = NULL, result = NULL,
    worker_id = NULL, heartbeat_at = NULL, started_at = NULL, updated_at = :now
WHERE j.id = ANY(:ids)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.namespace = :namespace
  AND (j.status IN ('FAILED', 'CANCELLED', 'SKIPPED')) IS TRUE
RETURNING j.*
