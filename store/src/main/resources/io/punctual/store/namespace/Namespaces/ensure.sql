-- The row of a namespace a key submits into for the first time: active, unlimited.
INSERT INTO namespaces (name, created_at) VALUES (:name, :now)
ON CONFLICT (name) DO NOTHING
