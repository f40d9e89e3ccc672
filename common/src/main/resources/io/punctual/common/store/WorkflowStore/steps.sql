-- The steps of a workflow with their jobs as they are now, in the order they were given. Each
-- step names its job's partition, so every job is one primary-key probe.
SELECT s.ref, j.*
FROM workflow_steps s
JOIN jobs j ON j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
WHERE s.workflow_id = :id
ORDER BY s.position
