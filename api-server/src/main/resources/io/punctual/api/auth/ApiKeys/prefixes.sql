-- The public prefixes of every key not revoked: the authenticator refuses a key whose prefix is not
-- among them without looking the key up (read at most once per auth.unknownKeysFor, and only when
-- an unknown prefix arrives).
SELECT DISTINCT prefix
FROM api_keys
WHERE revoked_at IS NULL
