-- When the earliest active schedule is due for planning (the first entry of schedules_plan_at),
-- leaving out schedules of deactivated namespaces as claimDue does (or the planner would wake for
-- them at once, again and again).
SELECT min(plan_at) FROM schedules
WHERE status = 'ACTIVE' AND plan_at IS NOT NULL
  AND NOT EXISTS (
    SELECT 1 FROM namespaces n WHERE n.name = schedules.namespace AND NOT n.active)
