-- After a write whose commit had an unknown outcome (the connection lost during the commit, the
-- server shut down): for each (job, attempt) of the batch, the job row as it is now and the
-- execution row of that attempt, if any, to tell a write that committed from one that did not.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts) AS v(id, ms, attempt)
)
SELECT v.id, v.attempt, j.status, j.attempt AS job_attempt, e.status AS exec_status,
       e.worker_id AS exec_worker_id
FROM v
JOIN jobs j ON j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
           AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
LEFT JOIN job_executions e ON e.job_id = v.id AND e.job_scheduled_at = j.scheduled_at
                          AND e.attempt = v.attempt
