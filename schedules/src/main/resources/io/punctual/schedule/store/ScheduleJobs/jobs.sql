-- A page of a schedule's jobs, newest scheduled first, after a keyset cursor (jobs_schedule gives
-- the order partition by partition).
SELECT * FROM jobs
WHERE schedule_id = :scheduleId AND namespace = :namespace
  AND (CAST(:status AS text) IS NULL OR status = CAST(:status AS text))
  AND (CAST(:cursor AS uuid) IS NULL OR (id < CAST(:cursor AS uuid) AND scheduled_at <= :cursorTime))
ORDER BY id DESC
LIMIT :limit
