-- Punctual's outbox, for an application whose database is not Punctual's: jobs written in the
-- application's own transaction (PunctualOutbox.enqueue) and forwarded to the Punctual API by
-- OutboxRelay. Copy this file into your Flyway or Liquibase migrations, or run it with
-- PunctualOutbox.createTable(connection). It may run more than once.
CREATE TABLE IF NOT EXISTS punctual_outbox (
  -- the order rows are forwarded in
  id              bigserial PRIMARY KEY,
  -- the job request (the Java client's JobRequest as JSON), its idempotencyKey always set
  request         jsonb       NOT NULL,
  -- the request's idempotency key: its own, or 'outbox-' and a random UUID
  idempotency_key text        NOT NULL,
  -- the W3C traceparent of what enqueued it, sent as the header (null: none)
  traceparent     text,
  created_at      timestamptz NOT NULL,
  -- forwards tried and failed; the last failure; when the next may be tried (also a relay's lease)
  attempts        integer     NOT NULL DEFAULT 0,
  last_error      text,
  next_attempt_at timestamptz NOT NULL,
  -- set when the API refused the request for good: the row stays, out of the relay's way
  dead_at         timestamptz
);

CREATE INDEX IF NOT EXISTS punctual_outbox_live ON punctual_outbox (id) WHERE dead_at IS NULL;
