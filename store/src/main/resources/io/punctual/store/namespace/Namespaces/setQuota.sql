UPDATE namespaces
SET submits_per_second = :submitsPerSecond, submit_burst = :burst, max_pending = :maxPending,
    max_payload_bytes = :maxPayloadBytes, max_running = :maxRunning,
    max_timeout_ms = :maxTimeoutMs, quota_version = quota_version + 1
WHERE name = :name
RETURNING name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending, max_payload_bytes, max_running, max_timeout_ms, quota_version, weight, egress_allow, keep_callback_response
