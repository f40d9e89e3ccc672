-- The keys not revoked whose secret starts with :prefix (nearly always one), hashes included:
-- the caller compares them with the presented secret's in constant time.
SELECT id, name, prefix, secret_sha256, role, namespaces, created_at, last_used_at, expires_at
FROM api_keys
WHERE prefix = :prefix AND revoked_at IS NULL
