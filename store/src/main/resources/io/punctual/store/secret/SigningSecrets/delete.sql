-- Deletes one secret of a namespace unless it is its last (under lock.sql's lock); the row
-- deleted, or none.
DELETE FROM namespace_signing_secrets s
WHERE s.id = :id
  AND s.namespace = :namespace
  AND (SELECT count(*) FROM namespace_signing_secrets o WHERE o.namespace = :namespace) > 1
RETURNING s.id
