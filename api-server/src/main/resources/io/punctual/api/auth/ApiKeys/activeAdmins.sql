-- How many admin keys could sign in now.
SELECT count(*) FROM api_keys
WHERE role = 'admin' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > :now)
