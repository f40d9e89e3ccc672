-- transition: FAIL
-- The CTE "failed" of succeedRetryOrFail.sql, there while the batch has attempts that failed for
-- good (:failIds): the job, RUNNING with this attempt, becomes FAILED.
UPDATE jobs j
SET status = 'FAILED', finished_at = punctual_ms(v.finished_ms),
    result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
FROM v
WHERE j.id = ANY(:failIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'RUNNING' AND j.attempt = v.attempt
RETURNING j.id
