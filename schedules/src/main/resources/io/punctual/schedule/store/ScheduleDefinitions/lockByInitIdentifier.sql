SELECT * FROM schedules
WHERE namespace = :namespace AND init_identifier = :initIdentifier
FOR UPDATE
