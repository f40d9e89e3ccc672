UPDATE schedules SET status = 'PAUSED', plan_at = NULL, updated_at = :now
WHERE id = :id
RETURNING *
