-- The owner's heartbeat while a bulk retry waits for its namespace's rate (no batch done): keeps a
-- takeover away; no row: the action is no longer this owner's (taken over, or ended).
UPDATE bulk_actions SET heartbeat_at = :now
WHERE id = :id AND owner = :owner AND status = 'running'
