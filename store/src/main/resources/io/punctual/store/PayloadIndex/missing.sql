-- The partitions of jobs without an index attached to jobs_payload.
SELECT c.relname AS partition FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'jobs'::regclass
  AND NOT EXISTS (
      SELECT 1 FROM pg_inherits ii
      JOIN pg_index x ON x.indexrelid = ii.inhrelid
      WHERE ii.inhparent = 'jobs_payload'::regclass AND x.indrelid = c.oid)
ORDER BY c.relname
