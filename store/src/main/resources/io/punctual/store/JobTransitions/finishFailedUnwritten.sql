-- transition: FAIL_UNWRITTEN
-- The CTE "failed_unwritten" of succeedRetryOrFail.sql, there while the batch has attempts that
-- failed for good, their claims never written (:failUnwrittenIds): the job, still PENDING with the
-- attempt before, becomes FAILED.
UPDATE jobs j
SET status = 'FAILED', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
    started_at = punctual_ms(v.finished_ms - v.duration_ms), finished_at = punctual_ms(v.finished_ms),
    result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
FROM v
WHERE j.id = ANY(:failUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
RETURNING j.id
