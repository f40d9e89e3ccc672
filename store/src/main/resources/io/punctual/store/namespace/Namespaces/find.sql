SELECT name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending, max_payload_bytes, max_running, max_timeout_ms, quota_version, weight, egress_allow, keep_callback_response
FROM namespaces
WHERE name = :name
