SELECT j.* FROM jobs j JOIN unnest(:ids, :scheduledMs) AS r(id, ms)
  ON j.id = r.id AND j.scheduled_at = punctual_ms(r.ms)
WHERE j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
