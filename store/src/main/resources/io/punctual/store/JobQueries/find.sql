SELECT * FROM jobs WHERE id = :id AND scheduled_at = :scheduledAt AND namespace = :namespace
