-- A namespace's secrets, oldest first.
SELECT id, secret, key_id, created_at
FROM namespace_signing_secrets
WHERE namespace = :namespace
ORDER BY created_at, id
