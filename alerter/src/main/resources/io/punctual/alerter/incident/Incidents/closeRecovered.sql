-- A recovery of the subject (a success written by the finish that made it, V18) clears the
-- incident, unless an event of it came later than the recovery (then it is still failing); no row
-- when nothing was open, or another alerter cleared it first.
DELETE FROM alert_incidents
WHERE rule_id = :ruleId AND subject = :subject AND last_event_at <= :at
RETURNING id, opened_at, events, CAST(detail AS text) AS detail
