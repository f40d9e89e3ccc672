UPDATE punctual_outbox o
SET next_attempt_at = ?
FROM (
  SELECT id FROM punctual_outbox
  WHERE dead_at IS NULL AND next_attempt_at <= ?
  ORDER BY id
  LIMIT ?
  FOR UPDATE SKIP LOCKED
) due
WHERE o.id = due.id
RETURNING o.id, o.request::text, o.traceparent, o.attempts
