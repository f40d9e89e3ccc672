-- Records materialised fire times; returns those recorded now. A fire time already on record (a
-- bug, or a race this design does not expect) is left alone, and the caller inserts no job for it:
-- the primary key (schedule_id, fire_at) is what keeps a fire time from running twice.
INSERT INTO schedule_occurrences (schedule_id, fire_at, job_id, outcome, created_at)
SELECT o.schedule_id, punctual_ms(o.fire_ms), o.job_id, o.outcome, :now
FROM unnest(:scheduleIds, :fireMs, :jobIds, :outcomes) AS o(schedule_id, fire_ms, job_id, outcome)
ON CONFLICT (schedule_id, fire_at) DO NOTHING
RETURNING schedule_id, fire_at
