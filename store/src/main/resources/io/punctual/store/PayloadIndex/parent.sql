-- The partitioned index alone (no partition is indexed by this statement, so it holds no lock
-- a writer waits for long); each partition's is built concurrently and attached (missing.sql).
CREATE INDEX IF NOT EXISTS jobs_payload ON ONLY jobs USING gin (payload jsonb_path_ops)
