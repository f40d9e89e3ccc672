-- The next batch of a bulk action's jobs, taken off its list (newest first, as listed), inside the
-- batch's transaction: they are back on the list if it does not commit.
DELETE FROM bulk_action_jobs
WHERE bulk_id = :bulkId
  AND job_id IN (SELECT job_id FROM bulk_action_jobs WHERE bulk_id = :bulkId
                 ORDER BY job_id DESC LIMIT :limit)
RETURNING job_id
