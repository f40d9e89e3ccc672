-- Active again from its first fire time after now: what fell in the pause is not caught up.
UPDATE schedules
SET status = 'ACTIVE', next_fire_at = :nextFireAt, plan_at = :planAt, updated_at = :now
WHERE id = :id
RETURNING *
