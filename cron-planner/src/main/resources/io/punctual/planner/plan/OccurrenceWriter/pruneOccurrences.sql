-- Occurrence records of the planned schedules older than the retention (a range of the primary key
-- per schedule): the table holds about a retention's worth of fire times.
DELETE FROM schedule_occurrences
WHERE schedule_id = ANY(:ids) AND fire_at < :before
