-- Indexes for the questions users ask of the store (measured with `./punctual bench scale`).

-- "Which jobs of type X are waiting in namespace Y, soonest first" (the dashboard's and the users'
-- triage question) reads only the pending jobs of that namespace and type. Like the other state
-- indexes it is partial, so a job has an entry only while it is PENDING. Its second condition is
-- always true (namespace is NOT NULL) and is there for the planner: the claim statement looks
-- jobs up by key and status = 'PENDING' and must keep using the primary key; it does not mention
-- namespace, so it cannot take this index, while any query filtering on a namespace can (see the
-- note on the state indexes in V1).
CREATE INDEX jobs_pending_by_type ON jobs (namespace, type, run_at)
    WHERE status = 'PENDING' AND namespace IS NOT NULL;

-- "Which jobs of this namespace are RUNNING (and since when)": GET /jobs?status=RUNNING and the
-- "stuck for over an hour" triage. Without it both read every partition (about 4 s at 10 million
-- jobs); with it they read a handful of entries, since only running jobs have one. Partial with
-- the same always-true second condition as above, so the heartbeat and finish statements, which
-- look running jobs up by key, keep to the primary key. It costs one index entry per claim.
CREATE INDEX jobs_running_by_namespace ON jobs (namespace, id)
    WHERE status = 'RUNNING' AND namespace IS NOT NULL;

-- Reports over finished jobs of a namespace and a time range ("success rate by type over the last
-- 7 days"): a range scan on (namespace, scheduled_at) whose entries carry type and status, so the
-- counts come from the index alone (about 1 s per tenant at 10 million jobs without it, a
-- sequential scan of a week of partitions). A job gets its one entry when it becomes final, and
-- final rows never change again, so the claim and the heartbeats never touch it.
CREATE INDEX jobs_final_by_namespace ON jobs (namespace, scheduled_at) INCLUDE (type, status)
    WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED');
