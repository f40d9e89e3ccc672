-- A batch done, in its transaction: what it changed and what it found changed; the owner's
-- heartbeat; progress clears the takeovers and the last error.
UPDATE bulk_actions SET done = done + :done, failed = failed + :failed, heartbeat_at = :now,
                        takeovers = 0, error = NULL, updated_at = :now
WHERE id = :id
