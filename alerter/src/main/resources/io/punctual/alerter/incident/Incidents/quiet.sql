-- Open incidents of event kinds with no new event since :before (they resolve), and open
-- incidents of condition kinds (the evaluator looks at each).
SELECT i.rule_id, i.subject
FROM alert_incidents i
JOIN alert_rules r ON r.id = i.rule_id
WHERE r.event IN ('job_failed', 'timed_out', 'duration_over', 'attempts_rescued', 'fire_time_missed')
  AND i.last_event_at < :before
ORDER BY i.last_event_at
LIMIT :limit
