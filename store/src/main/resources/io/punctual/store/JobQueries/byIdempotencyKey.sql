-- (condition) The job stored under an idempotency key of the namespace: one probe of the key table,
-- then of each partition's primary key.
AND id = (SELECT k.job_id FROM idempotency_keys k
          WHERE k.namespace = :namespace AND k.key = :idempotencyKey)
