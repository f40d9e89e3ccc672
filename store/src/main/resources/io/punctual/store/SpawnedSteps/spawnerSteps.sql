-- The step rows of the jobs :jobIds in the workflows :workflowIds (each pair a primary-key probe;
-- only the pairs that exist match).
SELECT workflow_id, job_id, ref, position FROM workflow_steps
WHERE workflow_id = ANY(:workflowIds)
  AND job_id = ANY(:jobIds)
