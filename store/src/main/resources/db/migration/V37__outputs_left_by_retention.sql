-- Progress and log lines (V34) that a retention pass left behind. Until this release the pass that
-- drops a day's execution history deleted that day's progress and log lines between midnight and
-- midnight in the session's TimeZone rather than UTC (the partitions' days), so on a connection off
-- UTC a dropped day kept the lines of its first (or last) hours, and no later pass looked at that
-- day again (R__partition_functions now compares in UTC). The lines of days before the oldest day
-- that still has an execution partition are deleted here; a store without such a day, or on UTC,
-- has none of them and nothing is deleted.
WITH oldest AS (
    SELECT min(to_date(substring(c.relname FROM '_p([0-9]{8})$'), 'YYYYMMDD')) AS day
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'job_executions'::regclass
      AND c.relname ~ '_p[0-9]{8}$'
), progress AS (
    DELETE FROM job_progress
    WHERE job_scheduled_at < (SELECT day::timestamp AT TIME ZONE 'UTC' FROM oldest)
)
DELETE FROM job_logs
WHERE job_scheduled_at < (SELECT day::timestamp AT TIME ZONE 'UTC' FROM oldest);
