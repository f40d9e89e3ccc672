-- The limit key of one job under its type's limit (as the claim computes it), if it has a limit
-- that rests keys on Retry-After.
SELECT CASE WHEN l.key_field IS NULL THEN ''
            WHEN l.key_field = 'concurrencyKey' THEN COALESCE(j.concurrency_key, '')
            ELSE COALESCE(j.payload ->> l.key_field, '') END AS key
FROM jobs j
JOIN limits l ON l.namespace = j.namespace AND l.type = j.type AND l.slow_key_on_retry_after
WHERE j.id = :id AND j.scheduled_at = :scheduledAt
