-- A page of a rule's notices, newest first (keyset: before the last id of the previous page).
SELECT id, rule_id, incident_id, subject, kind, dedup_key, status, attempts, due_at,
       next_attempt_at, last_attempt_at, last_response, last_error, sent_at, created_at,
       CAST(payload AS text) AS payload
FROM alert_deliveries
WHERE rule_id = :ruleId AND (CAST(:before AS bigint) IS NULL OR id < :before)
ORDER BY id DESC
LIMIT :limit
