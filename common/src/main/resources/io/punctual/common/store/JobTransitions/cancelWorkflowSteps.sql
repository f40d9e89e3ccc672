-- transition: CANCEL_BLOCKED, CANCEL_PENDING, CANCEL_RUNNING
-- For every step of a workflow not final yet; a
-- running attempt learns it at its next heartbeat. Returns what was cancelled.
UPDATE jobs j
SET status = 'CANCELLED', finished_at = :now, updated_at = :now,
    last_error = COALESCE(j.last_error, 'cancelled with its workflow')
FROM workflow_steps s
WHERE s.workflow_id = :id
  AND j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
  AND j.status IN ('BLOCKED', 'PENDING', 'RUNNING')
RETURNING j.id, j.namespace, j.priority
