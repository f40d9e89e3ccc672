-- One index of running jobs instead of two. jobs_running_heartbeat (V1: heartbeat_at of RUNNING
-- jobs) and jobs_running_by_namespace (V6: namespace, id of RUNNING jobs) held an entry each for
-- every running attempt, so every claim wrote two index entries for them and every heartbeat,
-- changing heartbeat_at, could never be a HOT update. Running jobs are few (the workers' slots, a
-- few thousand at most), so the reaper's scans of stale and dead workers' attempts
-- (JobQueries/staleRunning.sql, runningOf.sql) read them all from jobs_running_by_namespace and
-- sort them, which costs a few milliseconds a pass; a claim writes one running-index entry less,
-- and a heartbeat touches no index. Dropping the partitioned index drops it on every partition.
DROP INDEX IF EXISTS jobs_running_heartbeat;
