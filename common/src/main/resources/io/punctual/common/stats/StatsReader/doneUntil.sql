-- How far the rollup has got (no row before its first pass): the minutes before it, less the
-- rollup's settle time, are no longer rewritten.
SELECT done_until FROM job_stats_rollup WHERE id = 1
