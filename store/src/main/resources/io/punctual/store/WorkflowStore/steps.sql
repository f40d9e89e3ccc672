-- The steps of a workflow with their jobs as they are now: the submitted ones in the order they
-- were given, each followed by what it spawned (and what that spawned, see V9) in the order they
-- were stored. Each step names its job's partition, so every job is one primary-key probe.
SELECT s.ref, j.*
FROM workflow_steps s
JOIN jobs j ON j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
WHERE s.workflow_id = :id
ORDER BY s.position, s.seq
