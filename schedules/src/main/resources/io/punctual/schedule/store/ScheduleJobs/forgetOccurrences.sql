-- The occurrence records of cancelled jobs, so those fire times can be planned again.
DELETE FROM schedule_occurrences
WHERE schedule_id = :scheduleId
  AND fire_at IN (SELECT punctual_ms(ms) FROM unnest(CAST(:fireMs AS bigint[])) AS f(ms))
  AND job_id = ANY(:jobIds)
