-- Marks running attempts alive; returns those still RUNNING with that attempt. A job missing from
-- the answer was cancelled or rescued: its worker must stop the handler.
UPDATE jobs j
SET heartbeat_at = :now
FROM unnest(:ids, :scheduledMs, :attempts) AS r(id, ms, attempt)
WHERE j.id = ANY(:ids)
  AND j.id = r.id AND j.scheduled_at = punctual_ms(r.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'RUNNING' AND j.attempt = r.attempt
RETURNING j.id
