-- The kinds of event some rule watches (what the finish and rescue steps ask before writing).
SELECT DISTINCT event FROM alert_rules
