-- Deletes a rule; its events, incidents and notices go with it (ON DELETE CASCADE).
DELETE FROM alert_rules WHERE namespace = :namespace AND id = :id RETURNING id
