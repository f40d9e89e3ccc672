-- How far the rollup has got (no row before its first pass): the minutes before done_until, less
-- the rollup's settle time, are no longer rewritten; the hours before hours_until (null: none) are
-- in job_stats_hours, the days in [days_from, days_until) (null: none) in job_stats_days.
SELECT done_until, hours_until, days_from, days_until FROM job_stats_rollup WHERE id = 1
