UPDATE schedules SET last_job_id = :jobId WHERE id = :id
