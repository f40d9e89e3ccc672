SELECT name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending, max_payload_bytes, quota_version, weight
FROM namespaces
