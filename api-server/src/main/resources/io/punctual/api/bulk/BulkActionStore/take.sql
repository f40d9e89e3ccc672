-- The jobs of a bulk action matching its filter when it was accepted (the conditions of
-- JobQueries/count.sql), at most :max + 1 (more is refused before anything is done).
INSERT INTO bulk_action_jobs (bulk_id, job_id, job_scheduled_at)
SELECT CAST(:bulkId AS uuid), id, scheduled_at FROM jobs
WHERE namespace = :namespace
  AND scheduled_at >= :from AND scheduled_at < :to
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:type AS text) IS NULL OR type = CAST(:type AS text))
  AND (CAST(:tag AS text) IS NULL OR tags @> ARRAY[CAST(:tag AS text)])
  /*more*/
LIMIT :max + 1
