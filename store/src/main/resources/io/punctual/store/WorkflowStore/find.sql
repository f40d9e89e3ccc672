SELECT id, namespace, created_at, cancelled_at FROM workflows WHERE id = :id AND namespace = :namespace
