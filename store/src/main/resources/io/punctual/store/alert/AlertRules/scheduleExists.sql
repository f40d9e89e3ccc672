SELECT EXISTS (SELECT 1 FROM schedules WHERE namespace = :namespace AND id = :id)
