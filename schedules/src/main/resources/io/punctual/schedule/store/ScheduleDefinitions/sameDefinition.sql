-- Whether schedule :id already stores exactly this definition, compared in its stored form, so
-- that re-registering an unchanged declaration is a no-op: jsonb compares payload, backoff and
-- callback by value (1e3 = 1000 = 1000.0, key order and spacing ignored), and the bound durations
-- are whole milliseconds, as every_ms and timeout_ms store them.
SELECT EXISTS (
    SELECT 1 FROM schedules
    WHERE id = :id
      AND name = :name
      AND init_identifier IS NOT DISTINCT FROM CAST(:initIdentifier AS text)
      AND cron IS NOT DISTINCT FROM CAST(:cron AS text)
      AND every_ms IS NOT DISTINCT FROM CAST(:everyMs AS bigint)
      AND time_zone = :timeZone
      AND dst_gap = :dstGap
      AND dst_overlap = :dstOverlap
      AND start_at IS NOT DISTINCT FROM CAST(:startAt AS timestamptz)
      AND end_at IS NOT DISTINCT FROM CAST(:endAt AS timestamptz)
      AND misfire = :misfire
      AND overlap = :overlap
      AND type = :type
      AND payload = CAST(:payload AS jsonb)
      AND priority = :priority
      AND max_attempts = :maxAttempts
      AND backoff = CAST(:backoff AS jsonb)
      AND timeout_ms IS NOT DISTINCT FROM CAST(:timeoutMs AS bigint)
      AND tags = CAST(:tags AS text[])
      AND callback IS NOT DISTINCT FROM CAST(:callback AS jsonb)
)
