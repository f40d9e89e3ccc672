-- Every edge of the jobs :ids: what each waits for, and on what condition.
SELECT job_id, depends_on_id, condition, kind FROM job_dependencies WHERE job_id = ANY(:ids)
