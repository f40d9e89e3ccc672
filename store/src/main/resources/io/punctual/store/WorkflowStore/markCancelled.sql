UPDATE workflows SET cancelled_at = COALESCE(cancelled_at, :now)
WHERE id = :id AND namespace = :namespace
RETURNING id
