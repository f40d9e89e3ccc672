-- A worker that stops (SIGTERM, a rolling deploy) hands back the attempts still running at the end
-- of its shutdown grace (transition HAND_BACK, JobTransitions/handBack.sql): the job is PENDING
-- again at once and the attempt is recorded with status HANDED_BACK. A handoff does not use up one
-- of the job's attempts: the same statement raises max_attempts by one (docs/state-machine.md).
ALTER TABLE job_executions DROP CONSTRAINT job_executions_status_check;
ALTER TABLE job_executions ADD CONSTRAINT job_executions_status_check
    CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'LOST',
                      'HANDED_BACK'));
