-- A condition became true: opens the incident unless it is open already (then no row).
INSERT INTO alert_incidents (rule_id, subject, id, opened_at, last_event_at, events, detail)
VALUES (:ruleId, :subject, :id, :now, :now, 1, CAST(:detail AS jsonb))
ON CONFLICT (rule_id, subject) DO NOTHING
RETURNING id, opened_at
