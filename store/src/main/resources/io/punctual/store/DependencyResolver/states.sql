-- The current state of the jobs :ids (the ones judged jobs wait for).
SELECT id, status FROM jobs
WHERE id = ANY(:ids)
  AND scheduled_at BETWEEN :minScheduled AND :maxScheduled
