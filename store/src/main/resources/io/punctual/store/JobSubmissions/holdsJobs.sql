-- Whether this session's transaction holds a lock on the jobs table (it wrote jobs already): a new
-- partition of jobs, created on another connection, would then wait for this transaction to end.
SELECT EXISTS (
    SELECT 1
    FROM pg_locks
    WHERE pid = pg_backend_pid()
      AND locktype = 'relation'
      AND relation = 'jobs'::regclass
)
