-- The namespaces with a row and no secret.
SELECT n.name
FROM namespaces n
WHERE NOT EXISTS (SELECT 1 FROM namespace_signing_secrets s WHERE s.namespace = n.name)
ORDER BY n.name
