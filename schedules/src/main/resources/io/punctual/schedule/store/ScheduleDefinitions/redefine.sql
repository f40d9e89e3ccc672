-- A schedule's new definition, planned again from :nextFireAt (its first fire time after now).
UPDATE schedules
SET name = :name, cron = :cron, every_ms = :everyMs, time_zone = :timeZone, dst_gap = :dstGap,
    dst_overlap = :dstOverlap, start_at = :startAt, end_at = :endAt, misfire = :misfire,
    overlap = :overlap, type = :type, payload = CAST(:payload AS jsonb), priority = :priority,
    max_attempts = :maxAttempts, backoff = CAST(:backoff AS jsonb), timeout_ms = :timeoutMs,
    tags = :tags, callback = CAST(:callback AS jsonb), next_fire_at = :nextFireAt,
    plan_at = :planAt, updated_at = :now
WHERE id = :id
RETURNING *
