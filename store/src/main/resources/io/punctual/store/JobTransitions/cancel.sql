-- transition: CANCEL_BLOCKED, CANCEL_PENDING, CANCEL_RUNNING
-- One job becomes CANCELLED; final states are left alone. A cancelled running attempt gives back
-- its limit slot in this statement (matched by its attempt number), and a start a rate limit
-- reserved for the job is dropped.
WITH c AS (
UPDATE jobs
SET status = 'CANCELLED', finished_at = :now, updated_at = :now, last_error = COALESCE(last_error, 'cancelled')
WHERE id = :id AND scheduled_at = :scheduledAt AND namespace = :namespace
  AND status IN ('BLOCKED', 'PENDING', 'RUNNING')
RETURNING *
), freed AS (
    DELETE FROM limit_slots s USING c WHERE s.job_id = c.id AND s.attempt = c.attempt
), ns_freed AS (
    DELETE FROM namespace_slots s USING c WHERE s.job_id = c.id AND s.attempt = c.attempt
), unreserved AS (
    DELETE FROM limit_reservations r USING c WHERE r.job_id = c.id
)
SELECT * FROM c
