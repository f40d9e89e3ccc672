-- Replaces a rule's definition (its id, namespace and creation stay). A name another rule of the
-- namespace has is refused by alert_rules_name_key.
UPDATE alert_rules
SET name = :name, event = :event, job_type = :jobType, schedule_id = :scheduleId, count = :count,
    percent = :percent, window_ms = :windowMs, threshold_ms = :thresholdMs, channel = :channel,
    url = :url, cooldown_ms = :cooldownMs, updated_at = :now
WHERE namespace = :namespace AND id = :id
RETURNING id, namespace, name, event, job_type, schedule_id, count, percent, window_ms, threshold_ms, channel, url, cooldown_ms, created_at, updated_at
