-- Revokes a key; no row when it does not exist or was revoked already.
UPDATE api_keys SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL
