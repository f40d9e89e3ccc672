-- The latest attempt of a job that logged a line, if any.
SELECT max(attempt) FROM job_logs WHERE job_id = :id AND namespace = :namespace
