-- Reserves idempotency keys; returns the ones this call reserved (a concurrent holder of the same
-- key makes this wait for its commit, then the key is not returned).
INSERT INTO idempotency_keys (namespace, key, job_id, request_hash, created_at)
SELECT :namespace, k.key, k.job_id, k.request_hash, :now
FROM unnest(:keys, :jobIds, :hashes) AS k(key, job_id, request_hash)
ON CONFLICT (namespace, key) DO NOTHING
RETURNING key
