-- How far the rollup has got (no row before its first pass): the minutes before done_until, less
-- the rollup's settle time, are no longer rewritten; the hours before hours_until (null: none) are
-- in job_stats_hours.
SELECT done_until, hours_until FROM job_stats_rollup WHERE id = 1
