-- This process gives the action up (it stops, or a batch failed): the next takeover takes it at
-- once; error: the reason a batch failed, shown while it waits (null at a clean stop).
UPDATE bulk_actions SET owner = NULL, error = COALESCE(:error, error), updated_at = :now
WHERE id = :id AND owner = :owner AND status = 'running'
