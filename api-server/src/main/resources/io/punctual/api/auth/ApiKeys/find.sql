SELECT id, name, prefix, secret_sha256, role, namespaces, created_at, last_used_at, expires_at
FROM api_keys
WHERE id = :id AND revoked_at IS NULL
