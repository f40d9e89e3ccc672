-- A batch done: what it changed and what it found changed.
UPDATE bulk_actions SET done = done + :done, failed = failed + :failed, updated_at = :now
WHERE id = :id
