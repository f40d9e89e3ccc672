-- Deactivating keeps the first deactivated_at; reactivating clears it.
UPDATE namespaces
SET active = :active,
    deactivated_at = CASE WHEN :active THEN NULL ELSE coalesce(deactivated_at, :now) END
WHERE name = :name
RETURNING name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending, max_payload_bytes, max_running, max_timeout_ms, quota_version, weight, egress_allow, keep_callback_response
