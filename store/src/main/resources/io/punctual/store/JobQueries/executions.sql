-- Recorded attempts, plus the attempt running now (which has no row until it ends).
SELECT job_id, attempt, worker_id, status, started_at, finished_at, duration_ms, error,
       stack_trace, result
FROM job_executions
WHERE job_id = :id AND job_scheduled_at = :scheduledAt AND namespace = :namespace
UNION ALL
SELECT j.id, j.attempt, j.worker_id, 'RUNNING', j.started_at, NULL, NULL, NULL, NULL, NULL
FROM jobs j
WHERE j.id = :id AND j.scheduled_at = :scheduledAt AND j.namespace = :namespace
  AND j.status = 'RUNNING'
  AND NOT EXISTS (SELECT 1 FROM job_executions x
                  WHERE x.job_id = j.id AND x.job_scheduled_at = j.scheduled_at
                    AND x.attempt = j.attempt)
ORDER BY attempt
