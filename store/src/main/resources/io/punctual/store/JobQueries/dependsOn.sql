-- The dependencies of the jobs :ids (their edges other than the parent's), for reads that show
-- them: one probe of the primary key of job_dependencies per job.
SELECT job_id, depends_on_id, condition FROM job_dependencies
WHERE job_id = ANY(:ids)
  AND namespace = :namespace
  AND kind = 'dependency'
ORDER BY job_id, depends_on_id
