-- The status of jobs by id (the latest job of overlap-skip schedules); the bounds prune partitions.
SELECT j.id, j.status FROM jobs j
WHERE j.id = ANY(:ids)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
