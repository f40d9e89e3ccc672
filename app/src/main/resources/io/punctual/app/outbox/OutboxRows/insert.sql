INSERT INTO punctual_outbox (request, idempotency_key, traceparent, created_at, next_attempt_at)
VALUES (CAST(? AS jsonb), ?, ?, ?, ?)
RETURNING id
