-- An event of a rule and subject: opens the incident (opened true, the caller writes its firing
-- notice) or counts into the open one. Concurrent alerters wait on each other's row here, so one
-- of them opens it.
INSERT INTO alert_incidents AS i (rule_id, subject, id, opened_at, last_event_at, events, detail)
VALUES (:ruleId, :subject, :id, :now, :at, 1, CAST(:detail AS jsonb))
ON CONFLICT (rule_id, subject) DO UPDATE
SET last_event_at = greatest(i.last_event_at, EXCLUDED.last_event_at), events = i.events + 1
RETURNING i.id, i.opened_at, (xmax = 0) AS opened
