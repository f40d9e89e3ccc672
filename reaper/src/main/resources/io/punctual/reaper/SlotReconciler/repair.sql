-- Slots held by attempts that are not RUNNING any more (the job ended, or runs another attempt):
-- given back. Every statement that ends an attempt gives its slot back itself, so this finds
-- something only after a failure the design does not foresee; each row it deletes is counted.
DELETE FROM limit_slots s
WHERE NOT EXISTS (
    SELECT 1 FROM jobs j
    WHERE j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
      AND j.status = 'RUNNING' AND j.attempt = s.attempt)
RETURNING s.namespace, s.type, s.key, s.job_id, s.attempt
