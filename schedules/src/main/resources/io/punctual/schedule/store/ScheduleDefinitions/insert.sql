-- A new ACTIVE schedule; a name already used in the namespace violates schedules_name_key, and an
-- init_identifier already used makes this return nothing (the caller then reads the existing one).
INSERT INTO schedules (id, namespace, name, init_identifier, cron, every_ms, time_zone, dst_gap,
                       dst_overlap, start_at, end_at, misfire, overlap, type, payload, priority,
                       max_attempts, backoff, timeout_ms, tags, callback, status, next_fire_at,
                       plan_at, created_at, updated_at)
VALUES (:id, :namespace, :name, :initIdentifier, :cron, :everyMs, :timeZone, :dstGap,
        :dstOverlap, :startAt, :endAt, :misfire, :overlap, :type, CAST(:payload AS jsonb), :priority,
        :maxAttempts, CAST(:backoff AS jsonb), :timeoutMs, :tags, CAST(:callback AS jsonb), 'ACTIVE',
        :nextFireAt, :planAt, :now, :now)
ON CONFLICT (namespace, init_identifier) WHERE init_identifier IS NOT NULL DO NOTHING
RETURNING *
