-- Indexes for two more questions users ask of the store (measured with `./punctual bench scale`,
-- see "The store at scale" in docs/performance.md).

-- "Which jobs of this namespace are RUNNING (and since when)": GET /jobs?status=RUNNING and the
-- "stuck for over an hour" triage. Without it both read every partition (about 4 s at 10 million
-- jobs); with it they read a handful of entries, since only running jobs have one. Partial with
-- the same always-true second condition as the state indexes of V1, so the heartbeat, finish and
-- rescue statements, which look running jobs up by key, keep to the primary key. It costs one
-- index entry per claim.
CREATE INDEX jobs_running_by_namespace ON jobs (namespace, id)
    WHERE status = 'RUNNING' AND namespace IS NOT NULL;

-- Reports over finished jobs of a namespace and a time range ("success rate by type over the last
-- 7 days"): a range scan on (namespace, scheduled_at) whose entries carry type and status, so the
-- counts come from the index alone (about 1 s per tenant at 10 million jobs without it, a
-- sequential scan of a week of partitions). A job gets its one entry when it becomes final, and
-- final rows never change again, so claims and heartbeats never touch it.
CREATE INDEX jobs_final_by_namespace ON jobs (namespace, scheduled_at) INCLUDE (type, status)
    WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED');
