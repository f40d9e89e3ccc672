-- A new rule; no row when the namespace has a rule of that name already.
INSERT INTO alert_rules (id, namespace, name, event, job_type, schedule_id, count, percent,
                         window_ms, threshold_ms, channel, url, cooldown_ms, created_at, updated_at)
VALUES (:id, :namespace, :name, :event, :jobType, :scheduleId, :count, :percent, :windowMs,
        :thresholdMs, :channel, :url, :cooldownMs, :now, :now)
ON CONFLICT (namespace, name) DO NOTHING
RETURNING id, namespace, name, event, job_type, schedule_id, count, percent, window_ms, threshold_ms, channel, url, cooldown_ms, created_at, updated_at
