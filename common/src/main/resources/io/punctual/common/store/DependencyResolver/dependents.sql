-- The jobs waiting for any of :ids (jobs that just ended); the caller locks and judges those still
-- BLOCKED. The job_dependencies_upstream index serves this: nothing is read when no job waits.
SELECT DISTINCT job_id FROM job_dependencies WHERE depends_on_id = ANY(:ids)
