UPDATE punctual_outbox
SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
WHERE id = ? AND dead_at IS NULL
