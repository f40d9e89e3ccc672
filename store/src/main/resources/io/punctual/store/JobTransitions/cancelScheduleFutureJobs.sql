-- transition: CANCEL_PENDING
-- For a schedule's jobs that have not started and are
-- due after :now: what a change, a pause or a deletion of the schedule takes back. Guarded like
-- every transition: only PENDING rows move, so a job a worker claims meanwhile keeps running (and
-- keeps its occurrence). attempt = 0 leaves jobs waiting for a retry alone: they did start.
-- A job not started has run_at <= scheduled_at (scheduled at max(runAt, submit time)), so the bound
-- on scheduled_at keeps the partitions of past days out; jobs_schedule finds the rest.
UPDATE jobs
SET status = 'CANCELLED', finished_at = :now, updated_at = :now, last_error = :reason
WHERE schedule_id = :scheduleId
  AND scheduled_at > :now
  AND status = 'PENDING' AND attempt = 0 AND run_at > :now
RETURNING id, namespace, priority, run_at, occurrence_at
