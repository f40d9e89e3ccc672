-- Step rows for follow-ups spawned by workflow steps (see V9): the spawner's position, a ref
-- describing where the follow-up comes from, and the spawner.
INSERT INTO workflow_steps (workflow_id, position, ref, job_id, job_scheduled_at, spawned_by)
SELECT s.workflow_id, s.position, s.ref, s.job_id, punctual_ms(s.job_ms), s.spawned_by
FROM unnest(:workflowIds, :positions, :refs, :jobIds, :jobMs, :spawnedBy)
     AS s(workflow_id, position, ref, job_id, job_ms, spawned_by)
