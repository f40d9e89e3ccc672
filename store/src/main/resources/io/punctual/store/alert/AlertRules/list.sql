-- A page of a namespace's rules by name (keyset: after the last name of the previous page).
SELECT id, namespace, name, event, job_type, schedule_id, count, percent, window_ms, threshold_ms, channel, url, cooldown_ms, created_at, updated_at FROM alert_rules
WHERE namespace = :namespace AND (CAST(:after AS text) IS NULL OR name > :after)
ORDER BY name
LIMIT :limit
