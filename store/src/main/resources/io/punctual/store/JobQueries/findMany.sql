SELECT j.* FROM jobs j
WHERE j.id = ANY(:ids)
  AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
