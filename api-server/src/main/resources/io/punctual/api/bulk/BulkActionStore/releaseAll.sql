-- The process stops: every running action it owns is given up for another to take at once.
UPDATE bulk_actions SET owner = NULL, updated_at = :now
WHERE owner = :owner AND status = 'running'
