SELECT id, namespace, name, event, job_type, schedule_id, count, percent, window_ms, threshold_ms, channel, url, cooldown_ms, created_at, updated_at FROM alert_rules ORDER BY namespace, name
