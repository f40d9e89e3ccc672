-- A page of namespaces by name (keyset: after the last name of the previous page), all of them or
-- only those named in :names.
SELECT name, active, created_at, deactivated_at, submits_per_second, submit_burst, max_pending,
       max_payload_bytes, max_running, max_timeout_ms, quota_version, weight, egress_allow, keep_callback_response
FROM namespaces
WHERE (CAST(:after AS text) IS NULL OR name > :after)
  AND (:all OR name = ANY(:names))
ORDER BY name
LIMIT :limit
