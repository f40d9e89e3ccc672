-- Records that a key was used, unless a use at or after :recordedSince is recorded already (the
-- authenticator's cache period: lastUsedAt is that precise).
UPDATE api_keys SET last_used_at = :now
WHERE id = :id AND (last_used_at IS NULL OR last_used_at < :recordedSince)
