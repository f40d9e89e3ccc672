-- transition: CANCEL_BLOCKED, CANCEL_PENDING, CANCEL_RUNNING
-- One job becomes CANCELLED; final states are left alone.
UPDATE jobs
SET status = 'CANCELLED', finished_at = :now, updated_at = :now, last_error = COALESCE(last_error, 'cancelled')
WHERE id = :id AND scheduled_at = :scheduledAt AND namespace = :namespace
  AND status IN ('BLOCKED', 'PENDING', 'RUNNING')
RETURNING *
