-- Keyset page of the jobs whose parent is :parentId (workflow steps, follow-ups a handler spawned),
-- oldest scheduled first. A child may be scheduled in any partition, so every partition's
-- jobs_parent index is probed; the cursor's scheduled time (embedded in its id) bounds the rest.
SELECT * FROM jobs
WHERE parent_id = :parentId
  AND namespace = :namespace
  AND scheduled_at >= :from
  AND (CAST(:cursor AS uuid) IS NULL OR id > CAST(:cursor AS uuid))
ORDER BY id
LIMIT :limit
