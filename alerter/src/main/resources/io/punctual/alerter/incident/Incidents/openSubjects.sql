-- The subjects of a rule's open incidents.
SELECT subject FROM alert_incidents WHERE rule_id = :ruleId
