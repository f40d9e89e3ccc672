-- A new key; nothing when a key with the same secret exists (the bootstrap key, given again).
INSERT INTO api_keys (id, name, prefix, secret_sha256, role, namespaces, created_at, expires_at)
VALUES (:id, :name, :prefix, :secretSha256, :role, :namespaces, :now, :expiresAt)
ON CONFLICT (secret_sha256) DO NOTHING
