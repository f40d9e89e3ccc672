-- A worker shut down gracefully.
UPDATE workers SET stopped_at = :now, running = 0, heartbeat_at = :now WHERE id = :id
