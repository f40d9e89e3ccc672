-- Where each planned schedule now stands: its next unmaterialised fire time, when to plan it next,
-- the latest fire time and job materialised (unchanged when none was).
UPDATE schedules s
SET next_fire_at = punctual_ms(v.next_ms),
    plan_at      = punctual_ms(v.plan_ms),
    last_fire_at = COALESCE(punctual_ms(v.last_fire_ms), s.last_fire_at),
    last_job_id  = COALESCE(v.last_job_id, s.last_job_id)
FROM unnest(:ids, :nextMs, :planMs, :lastFireMs, :lastJobIds)
     AS v(id, next_ms, plan_ms, last_fire_ms, last_job_id)
WHERE s.id = v.id
