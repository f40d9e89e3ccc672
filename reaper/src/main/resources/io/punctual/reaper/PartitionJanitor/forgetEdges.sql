-- Forgets the edges of jobs whose day went past retention (their partition is gone), a bounded
-- batch at a time. Edges of a job still stored (a day kept because it holds a job not final) stay.
DELETE FROM job_dependencies
WHERE ctid = ANY (ARRAY(
    SELECT d.ctid FROM job_dependencies d
    WHERE d.job_scheduled_at < :before
      AND NOT EXISTS (SELECT 1 FROM jobs j
                      WHERE j.id = d.job_id AND j.scheduled_at = d.job_scheduled_at)
    LIMIT :limit))
