-- Pending jobs due in (after, until], in (run_at, id) order, for the promoter. Keyset paging.
SELECT id, namespace, priority, run_at FROM jobs
WHERE status = 'PENDING'
  AND (run_at, id) > (:afterRunAt, :afterId)
  AND run_at <= :until
ORDER BY run_at, id
LIMIT :limit
