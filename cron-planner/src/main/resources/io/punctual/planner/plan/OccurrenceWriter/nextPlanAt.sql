-- When the earliest active schedule is due for planning (the first entry of schedules_plan_at).
SELECT min(plan_at) FROM schedules WHERE status = 'ACTIVE' AND plan_at IS NOT NULL
