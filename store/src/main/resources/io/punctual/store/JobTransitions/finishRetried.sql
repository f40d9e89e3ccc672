-- transition: RETRY
-- The CTE "retried" of succeedRetryOrFail.sql, there while the batch has attempts that failed with
-- attempts left (:retryIds): the job, RUNNING with this attempt, is PENDING again, due at the
-- attempt's next run time.
UPDATE jobs j
SET status = 'PENDING', run_at = punctual_ms(v.next_run_ms), finished_at = NULL,
    result = CAST(v.result AS jsonb), last_error = v.error, heartbeat_at = NULL, updated_at = :now
FROM v
WHERE j.id = ANY(:retryIds) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'RUNNING' AND j.attempt = v.attempt
RETURNING j.id
