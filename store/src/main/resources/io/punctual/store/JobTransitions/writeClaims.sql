-- transition: CLAIM
-- Writes the claims a worker read without writing them (peekPlain.sql) for the attempts that
-- outlived worker.claimWriteAfter: PENDING -> RUNNING with the attempt the worker holds, its id,
-- and when the handler started, guarded by the attempt the claim read (attempt = held - 1) and the
-- attempts left. A job cancelled meanwhile, or whose unwritten attempt a reaper rescued after this
-- worker's death (it writes the claim in the dead worker's name and then rescues it), is refused:
-- the worker stops that handler. A claim already written by this worker with that attempt (a retry
-- after a commit whose outcome was unknown) counts as written. Returns the ids written.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts, :startedMs)
                  AS v(id, ms, attempt, started_ms)
), written AS (
    UPDATE jobs j
    SET status = 'RUNNING', attempt = v.attempt, worker_id = :workerId,
        started_at = punctual_ms(v.started_ms), heartbeat_at = :now, updated_at = :now
    FROM v
    WHERE j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt = v.attempt - 1 AND j.attempt < j.max_attempts
    RETURNING j.id
)
SELECT id FROM written
UNION ALL
SELECT j.id
FROM jobs j
JOIN v ON j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
WHERE j.id = ANY(:ids)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND j.status = 'RUNNING' AND j.attempt = v.attempt AND j.worker_id = :workerId
