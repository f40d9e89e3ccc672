-- The action ended: 'done', or 'failed' with the reason it stopped (the jobs not reached are left
-- untouched), if it is still running and owned by the process ending it.
UPDATE bulk_actions SET status = :status, error = :error, owner = NULL, updated_at = :now
WHERE id = :id AND owner = :owner AND status = 'running'
