-- The jobs a job of the namespace waits for (its parent and its dependencies) that have not ended,
-- with their status, for a diagnosis: one probe of each upstream job's primary key.
SELECT d.depends_on_id AS id, u.status
FROM job_dependencies d
JOIN jobs u ON u.id = d.depends_on_id AND u.scheduled_at = d.depends_on_scheduled_at
WHERE d.job_id = :id AND d.namespace = :namespace
  AND u.status IN ('BLOCKED', 'PENDING', 'RUNNING')
ORDER BY d.depends_on_id
