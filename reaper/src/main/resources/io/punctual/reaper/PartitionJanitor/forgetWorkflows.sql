-- Forgets workflows created before the retention line none of whose steps is still stored (their
-- steps go with them), a bounded batch at a time.
DELETE FROM workflows
WHERE ctid = ANY (ARRAY(
    SELECT w.ctid FROM workflows w
    WHERE w.created_at < :before
      AND NOT EXISTS (SELECT 1 FROM workflow_steps s
                      JOIN jobs j ON j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
                      WHERE s.workflow_id = w.id)
    LIMIT :limit))
