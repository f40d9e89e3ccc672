-- transition: SUCCEED_UNWRITTEN
-- The CTE "succeeded_unwritten" of succeedRetryOrFail.sql, there while the batch has attempts that
-- succeeded with their claims never written (:succeedUnwrittenIds, peekPlain.sql): the job, still
-- PENDING with the attempt before, becomes SUCCEEDED; claim and end are one write, and attempt,
-- worker and start take the attempt's values.
UPDATE jobs j
SET status = 'SUCCEEDED', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
    started_at = punctual_ms(v.finished_ms - v.duration_ms), finished_at = punctual_ms(v.finished_ms),
    result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
FROM v
WHERE j.id = ANY(:succeedUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
RETURNING j.id
