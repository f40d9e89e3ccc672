-- Forgets workers not heard of since :before (stopped or dead).
DELETE FROM workers WHERE heartbeat_at < :before
