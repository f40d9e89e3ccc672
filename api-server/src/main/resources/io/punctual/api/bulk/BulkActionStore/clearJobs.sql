-- The jobs a stopped action leaves (none once it is done).
DELETE FROM bulk_action_jobs WHERE bulk_id = :id
