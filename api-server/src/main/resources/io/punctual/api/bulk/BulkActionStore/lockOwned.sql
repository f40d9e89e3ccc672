-- The action, if this process still owns it and it is running, locked for the batch's
-- transaction: a takeover (takeOver.sql) waits for the batch, then finds its heartbeat fresh.
SELECT namespace, action FROM bulk_actions
WHERE id = :id AND owner = :owner AND status = 'running'
FOR UPDATE
