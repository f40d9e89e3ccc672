-- The edges to any of :ids (jobs that just ended): which jobs wait for them, and on what condition.
-- The caller locks and judges those still BLOCKED on these edges alone. The
-- job_dependencies_upstream index serves this: nothing is read when no job waits, and a job that
-- ends reads only its own edges, however many others the jobs waiting for it wait for.
SELECT job_id, depends_on_id, condition, kind FROM job_dependencies WHERE depends_on_id = ANY(:ids)
