-- Keyset page of jobs, newest scheduled first. Bounds on scheduled_at are always given (the caller
-- narrows them with the cursor), so only the partitions in range are read. The marker below takes
-- the optional conditions of the request (JobFilter: byTag.sql, byIdempotencyKey.sql,
-- byPayload.sql), so that each combination is a statement of its own, planned with the index it
-- needs.
SELECT * FROM jobs
WHERE namespace = :namespace
  AND scheduled_at >= :from AND scheduled_at < :to
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:type AS text) IS NULL OR type = CAST(:type AS text))
  AND (CAST(:tag AS text) IS NULL OR tags @> ARRAY[CAST(:tag AS text)])
  AND (CAST(:cursor AS uuid) IS NULL OR id < CAST(:cursor AS uuid))
  /*more*/
ORDER BY id DESC
LIMIT :limit
