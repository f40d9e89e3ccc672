-- Its occurrence records go with it (ON DELETE CASCADE); its jobs stay, with their schedule_id.
DELETE FROM schedules WHERE id = :id
