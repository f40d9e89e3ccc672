-- fire_time_missed: the fire times the planner recorded without a job (missed while no planner
-- ran, or skipped because the previous run was still going) since :since, as outbox events of
-- every fire_time_missed rule of the schedule's namespace (all schedules, or the rule's). The
-- event key makes a fire time found again a no-op.
INSERT INTO alert_events (rule_id, subject, event_key, detail, occurred_at)
SELECT r.id, 'schedule:' || o.schedule_id, o.schedule_id || '@' || o.fire_at,
       jsonb_build_object('scheduleId', o.schedule_id, 'schedule', s.name,
                          'fireAt', o.fire_at, 'outcome', o.outcome),
       o.created_at
FROM schedule_occurrences o
JOIN schedules s ON s.id = o.schedule_id
JOIN alert_rules r ON r.namespace = s.namespace AND r.event = 'fire_time_missed'
                  AND (r.schedule_id IS NULL OR r.schedule_id = o.schedule_id)
WHERE o.outcome <> 'job' AND o.created_at > :since AND o.created_at >= r.created_at
ON CONFLICT (rule_id, event_key) WHERE event_key IS NOT NULL DO NOTHING
