-- Whether the partitioned index jobs_payload exists, and whether it is valid (every partition has
-- its index attached).
SELECT i.indisvalid AS valid FROM pg_index i
WHERE i.indexrelid = to_regclass('jobs_payload')
