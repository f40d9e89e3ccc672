-- The namespace and kind of a running action, if :owner owns it (read before its first batch).
SELECT namespace, action FROM bulk_actions
WHERE id = :id AND owner = :owner AND status = 'running'
