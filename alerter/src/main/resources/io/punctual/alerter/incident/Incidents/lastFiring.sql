-- When the latest firing notice of a rule and subject was due (the cooldown counts from it); a
-- notice the cooldown held and dropped does not count.
SELECT due_at FROM alert_deliveries
WHERE rule_id = :ruleId AND subject = :subject AND kind = 'firing' AND status <> 'held'
ORDER BY id DESC
LIMIT 1
