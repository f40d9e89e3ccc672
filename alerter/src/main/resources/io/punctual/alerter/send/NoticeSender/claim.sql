-- Takes up to :limit due notices for one attempt each: their next attempt moves on by the lease
-- (should this alerter die mid-send, another tries again after it) and the attempt is counted.
-- SKIP LOCKED: several alerters never take the same notice. A resolved notice waits while its
-- incident's firing notice is still pending, so a receiver never hears the end before the start.
WITH due AS (
    SELECT d.id
    FROM alert_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= :now
      AND NOT (d.kind = 'resolved' AND EXISTS (
          SELECT 1 FROM alert_deliveries f
          WHERE f.incident_id = d.incident_id AND f.kind = 'firing' AND f.status = 'pending'))
    ORDER BY d.next_attempt_at, d.id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
UPDATE alert_deliveries d
SET attempts = d.attempts + 1, next_attempt_at = :leaseUntil, last_attempt_at = :now
FROM due, alert_rules r
WHERE d.id = due.id AND r.id = d.rule_id
RETURNING d.id, d.rule_id, r.namespace, r.name, r.channel, r.url, d.kind, d.dedup_key,
          d.attempts, CAST(d.payload AS text) AS payload
