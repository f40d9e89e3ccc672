-- A page of a namespace's schedules by name (the (namespace, name) unique index gives the order),
-- after a keyset cursor.
SELECT s.*,
       (SELECT max(o.fire_at) FROM schedule_occurrences o
        WHERE o.schedule_id = s.id AND o.fire_at <= :now AND o.outcome = 'job') AS last_fired_at
FROM schedules s
WHERE s.namespace = :namespace
  AND (CAST(:status AS text) IS NULL OR s.status = CAST(:status AS text))
  AND (CAST(:afterName AS text) IS NULL OR s.name > CAST(:afterName AS text))
ORDER BY s.name
LIMIT :limit
