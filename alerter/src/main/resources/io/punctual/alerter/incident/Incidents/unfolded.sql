-- Outbox events not folded yet, oldest first, each taken by one alerter (SKIP LOCKED: several
-- reapers never fold the same event), with the rule each belongs to; recovery: a success of the
-- subject, which clears its incident (V18).
SELECT e.id, e.rule_id, e.subject, CAST(e.detail AS text) AS detail, e.occurred_at, e.recovery
FROM alert_events e
WHERE e.folded_at IS NULL
ORDER BY e.id
LIMIT :limit
FOR UPDATE SKIP LOCKED
