-- One schedule of a namespace, with the latest fire time that has come and became a job (read
-- backwards along schedule_occurrences' primary key).
SELECT s.*,
       (SELECT max(o.fire_at) FROM schedule_occurrences o
        WHERE o.schedule_id = s.id AND o.fire_at <= :now AND o.outcome = 'job') AS last_fired_at
FROM schedules s
WHERE s.id = :id AND s.namespace = :namespace
