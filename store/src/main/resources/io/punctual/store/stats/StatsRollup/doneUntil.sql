-- How far the rollup has got (no row before its first pass).
SELECT done_until FROM job_stats_rollup WHERE id = 1
