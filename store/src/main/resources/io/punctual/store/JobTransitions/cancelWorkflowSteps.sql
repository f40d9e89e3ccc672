-- transition: CANCEL_BLOCKED, CANCEL_PENDING, CANCEL_RUNNING
-- For every step of a workflow not final yet; a
-- running attempt learns it at its next heartbeat, and gives back its limit slot in this statement
-- (matched by its attempt number). Returns what was cancelled.
WITH c AS (
UPDATE jobs j
SET status = 'CANCELLED', finished_at = :now, updated_at = :now,
    last_error = COALESCE(j.last_error, 'cancelled with its workflow')
FROM workflow_steps s
WHERE s.workflow_id = :id
  AND j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
  AND j.status IN ('BLOCKED', 'PENDING', 'RUNNING')
RETURNING j.id, j.namespace, j.priority, j.attempt
), freed AS (
    DELETE FROM limit_slots s USING c WHERE s.job_id = c.id AND s.attempt = c.attempt
), ns_freed AS (
    DELETE FROM namespace_slots s USING c WHERE s.job_id = c.id AND s.attempt = c.attempt
)
SELECT id, namespace, priority FROM c
