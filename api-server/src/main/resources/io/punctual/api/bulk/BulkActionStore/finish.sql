-- The action ended: 'done', or 'failed' with the error that stopped it (its jobs left untouched).
UPDATE bulk_actions SET status = :status, error = :error, updated_at = :now WHERE id = :id
