-- How many jobs a filter of GET /api/v1/jobs matches (a bulk action's dry run); the same
-- conditions as list.sql, without the page.
SELECT count(*) FROM jobs
WHERE namespace = :namespace
  AND scheduled_at >= :from AND scheduled_at < :to
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:type AS text) IS NULL OR type = CAST(:type AS text))
  AND (CAST(:tag AS text) IS NULL OR tags @> ARRAY[CAST(:tag AS text)])
  /*more*/
