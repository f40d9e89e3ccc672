INSERT INTO workflow_steps (workflow_id, position, ref, job_id, job_scheduled_at)
SELECT :workflowId, s.position, s.ref, s.job_id, punctual_ms(s.job_ms)
FROM unnest(:positions, :refs, :jobIds, :jobMs) AS s(position, ref, job_id, job_ms)
