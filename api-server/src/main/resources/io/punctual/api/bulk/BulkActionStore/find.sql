-- One bulk action of a namespace.
SELECT id, action, status, count, done, failed, error FROM bulk_actions
WHERE id = :id AND namespace = :namespace
