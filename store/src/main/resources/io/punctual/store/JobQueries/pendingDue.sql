-- Pending jobs due in (after, until], in (run_at, id) order, for the promoter. Keyset paging.
-- A job never runs before its scheduled time (retries only move run_at later), so the bound on
-- scheduled_at leaves out the partitions of later days.
SELECT id, namespace, priority, run_at FROM jobs
WHERE status = 'PENDING'
  AND (run_at, id) > (:afterRunAt, :afterId)
  AND run_at <= :until
  AND scheduled_at <= :until
ORDER BY run_at, id
LIMIT :limit
