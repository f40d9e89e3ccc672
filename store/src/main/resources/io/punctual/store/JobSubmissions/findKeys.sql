SELECT key, job_id, request_hash FROM idempotency_keys WHERE namespace = :namespace AND key = ANY(:keys)
