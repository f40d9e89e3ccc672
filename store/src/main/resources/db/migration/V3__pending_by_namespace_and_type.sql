-- "Which jobs of type X are waiting in namespace Y, soonest first" (the dashboard's and the users'
-- triage question) reads only the pending jobs of that namespace and type. Like the other state
-- indexes it is partial, so a job has an entry only while it is PENDING. Its second condition is
-- always true (namespace is NOT NULL) and is there for the planner: the claim statement looks
-- jobs up by key and status = 'PENDING' and must keep using the primary key; it does not mention
-- namespace, so it cannot take this index, while any query filtering on a namespace can (see the
-- note on the state indexes in V1).
CREATE INDEX jobs_pending_by_type ON jobs (namespace, type, run_at)
    WHERE status = 'PENDING' AND namespace IS NOT NULL;
