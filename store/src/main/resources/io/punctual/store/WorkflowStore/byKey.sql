SELECT id, request_hash FROM workflows WHERE namespace = :namespace AND idempotency_key = :idempotencyKey
