-- waiting_over: the oldest due time of the rule's scope's PENDING jobs due before :before (the
-- threshold ago), if any (jobs_pending_by_type, jobs_pending_run_at).
SELECT min(run_at) AS oldest
FROM jobs
WHERE status = 'PENDING' AND namespace = :namespace AND run_at < :before
  AND (CAST(:type AS text) IS NULL OR type = :type)
