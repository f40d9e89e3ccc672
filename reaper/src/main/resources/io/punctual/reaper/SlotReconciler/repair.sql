-- Slots held by attempts that are not RUNNING any more (the job ended, or runs another attempt):
-- given back, limits' slots (V14) and namespaces' running slots (V27) alike (the latter with no
-- type and key). Every statement that ends an attempt gives its slots back itself, so this finds
-- something only after a failure the design does not foresee (or a key slot whose job lost its
-- namespace slot to a claim that had not read the namespace's cap yet); each row it deletes is
-- counted.
WITH limit_freed AS (
    DELETE FROM limit_slots s
    WHERE NOT EXISTS (
        SELECT 1 FROM jobs j
        WHERE j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
          AND j.status = 'RUNNING' AND j.attempt = s.attempt)
    RETURNING s.namespace, s.type, s.key, s.job_id, s.attempt
), namespace_freed AS (
    DELETE FROM namespace_slots s
    WHERE NOT EXISTS (
        SELECT 1 FROM jobs j
        WHERE j.id = s.job_id AND j.scheduled_at = s.job_scheduled_at
          AND j.status = 'RUNNING' AND j.attempt = s.attempt)
    RETURNING s.namespace, CAST(NULL AS text) AS type, CAST(NULL AS text) AS key, s.job_id,
              s.attempt
)
SELECT * FROM limit_freed
UNION ALL
SELECT * FROM namespace_freed
