-- Drops the payload index of every partition with it.
DROP INDEX IF EXISTS jobs_payload
