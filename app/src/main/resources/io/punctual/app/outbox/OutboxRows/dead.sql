UPDATE punctual_outbox
SET attempts = attempts + 1, last_error = ?, dead_at = ?
WHERE id = ?
