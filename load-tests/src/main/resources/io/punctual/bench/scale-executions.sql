-- ScaleStore's load: one job_executions row per finished attempt of the jobs scheduled in one
-- range, from the first parameter to the second (a day: one partition of both tables).
INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                            started_at, finished_at, duration_ms, error, result)
SELECT j.id, j.scheduled_at, a, j.namespace, 'worker-' || (a % 7),
       CASE WHEN j.status = 'FAILED' THEN 'FAILED' WHEN j.status = 'CANCELLED' THEN 'CANCELLED'
            ELSE 'SUCCEEDED' END,
       j.scheduled_at + (a - 1) * interval '1 second',
       j.scheduled_at + (a - 1) * interval '1 second' + interval '60 milliseconds', 60,
       j.last_error, j.result
FROM jobs j, generate_series(1, j.attempt) a
WHERE j.scheduled_at >= ? AND j.scheduled_at < ?
  AND j.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
