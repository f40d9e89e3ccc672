-- Clears an incident; no row when another alerter cleared it first.
DELETE FROM alert_incidents WHERE rule_id = :ruleId AND subject = :subject
RETURNING id, opened_at, events, CAST(detail AS text) AS detail
