-- Forgets idempotency keys older than the job retention, a bounded batch at a time.
DELETE FROM idempotency_keys
WHERE ctid = ANY (ARRAY(SELECT ctid FROM idempotency_keys WHERE created_at < :before LIMIT :limit))
