-- A live worker reports in; a row that was pruned meanwhile is not recreated here (register is).
UPDATE workers SET heartbeat_at = :now, running = :running
WHERE id = :id AND stopped_at IS NULL
