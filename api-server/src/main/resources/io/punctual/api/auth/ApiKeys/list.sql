-- The keys not revoked, oldest first, after :afterCreatedAt/:afterId (keyset paging).
SELECT id, name, prefix, secret_sha256, role, namespaces, created_at, last_used_at, expires_at
FROM api_keys
WHERE revoked_at IS NULL
  AND (created_at, id) > (:afterCreatedAt, :afterId)
ORDER BY created_at, id
LIMIT :limit
