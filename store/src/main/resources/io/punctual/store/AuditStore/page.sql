-- Keyset page of the audit log, newest first. Bounds on at are always given (the caller narrows
-- them with the cursor), so only the day partitions in range are read.
SELECT id, at, request_id, key_id, key_name, namespace, action, target, status, problem, kind,
       count, first_at, source, reason
FROM audit_log
WHERE at >= :from AND at < :to
  AND (:anyNamespace OR namespace = ANY(:namespaces))
  AND (CAST(:namespace AS text) IS NULL OR namespace = CAST(:namespace AS text))
  AND (CAST(:keyId AS uuid) IS NULL OR key_id = CAST(:keyId AS uuid))
  AND (CAST(:action AS text) IS NULL OR action = CAST(:action AS text))
  AND (CAST(:cursorId AS bigint) IS NULL
       OR (at, id) < (CAST(:cursorAt AS timestamptz), CAST(:cursorId AS bigint)))
ORDER BY at DESC, id DESC
LIMIT :limit
