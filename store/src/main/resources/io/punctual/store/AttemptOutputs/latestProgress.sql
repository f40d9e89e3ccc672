-- The progress of a job's latest attempt that reported any.
SELECT attempt, percent, done, total, updated_at
FROM job_progress
WHERE job_id = :id AND namespace = :namespace
ORDER BY attempt DESC
LIMIT 1
