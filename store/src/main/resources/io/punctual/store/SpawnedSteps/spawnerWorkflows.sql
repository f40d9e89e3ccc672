-- The workflows of the jobs :ids (jobs about to record a success that spawns follow-ups), by
-- primary key. Read before the finish statement, so that the workflows can be locked first.
SELECT id, workflow_id FROM jobs
WHERE id = ANY(:ids)
  AND scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND workflow_id IS NOT NULL
