-- A new namespace; no row when one of that name exists.
INSERT INTO namespaces (name, created_at, submits_per_second, submit_burst, max_pending,
                        max_payload_bytes, max_running, max_timeout_ms, weight)
VALUES (:name, :now, :submitsPerSecond, :burst, :maxPending, :maxPayloadBytes, :maxRunning,
        :maxTimeoutMs, :weight)
ON CONFLICT (name) DO NOTHING
RETURNING name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending, max_payload_bytes, max_running, max_timeout_ms, quota_version, weight, egress_allow, keep_callback_response
