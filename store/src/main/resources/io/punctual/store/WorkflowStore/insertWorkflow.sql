-- A new workflow; with an idempotency key already used in the namespace, nothing is inserted and
-- the caller reads the stored workflow instead.
INSERT INTO workflows (id, namespace, idempotency_key, request_hash, created_at)
VALUES (:id, :namespace, :idempotencyKey, :requestHash, :now)
ON CONFLICT (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING id
