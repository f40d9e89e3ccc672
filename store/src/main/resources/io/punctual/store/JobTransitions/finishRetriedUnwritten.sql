-- transition: RETRY_UNWRITTEN
-- The CTE "retried_unwritten" of succeedRetryOrFail.sql, there while the batch has attempts that
-- failed with attempts left, their claims never written (:retryUnwrittenIds): the job, still
-- PENDING with the attempt before, stays PENDING with this attempt's number, due at its next run.
UPDATE jobs j
SET status = 'PENDING', attempt = v.attempt, worker_id = COALESCE(CAST(:workerId AS text), j.worker_id),
    started_at = punctual_ms(v.finished_ms - v.duration_ms), run_at = punctual_ms(v.next_run_ms),
    finished_at = NULL, result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL,
    updated_at = :now
FROM v
WHERE j.id = ANY(:retryUnwrittenIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'PENDING' AND j.attempt = v.attempt - 1
RETURNING j.id
