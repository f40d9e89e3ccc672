SELECT count(*) FILTER (WHERE dead_at IS NULL),
       count(*) FILTER (WHERE dead_at IS NOT NULL),
       min(created_at) FILTER (WHERE dead_at IS NULL)
FROM punctual_outbox
