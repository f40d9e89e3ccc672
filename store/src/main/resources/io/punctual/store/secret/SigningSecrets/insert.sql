INSERT INTO namespace_signing_secrets (id, namespace, secret, key_id, created_at)
VALUES (:id, :namespace, :secret, :keyId, :now)
