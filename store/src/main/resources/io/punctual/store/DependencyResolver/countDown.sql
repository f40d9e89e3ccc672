-- The count of edges still open of BLOCKED jobs this transaction holds locked and has judged still
-- waiting (V10). Not a transition: the status stays BLOCKED, and the guard keeps it so.
UPDATE jobs j
SET waiting_for = v.open
FROM unnest(:ids, :scheduledMs, :open) AS v(id, ms, open)
WHERE j.id = ANY(:ids)
  AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'BLOCKED'
