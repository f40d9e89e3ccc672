-- Transitions UNBLOCK (BLOCKED -> PENDING) and SKIP (BLOCKED -> SKIPPED, final, with the reason),
-- for jobs this transaction holds locked and has judged. Guarded by status all the same.
UPDATE jobs j
SET status      = v.next_state,
    finished_at = CASE WHEN v.next_state = 'SKIPPED' THEN CAST(:now AS timestamptz) END,
    last_error  = v.reason,
    updated_at  = CAST(:now AS timestamptz)
FROM unnest(:ids, :scheduledMs, :nextStates, :reasons) AS v(id, ms, next_state, reason)
WHERE j.id = ANY(:ids)
  AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'BLOCKED'
RETURNING j.id, j.namespace, j.priority, j.run_at, j.status
