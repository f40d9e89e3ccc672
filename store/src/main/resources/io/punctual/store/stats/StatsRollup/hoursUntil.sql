-- The hours before this are in job_stats_hours (null: none yet).
SELECT hours_until FROM job_stats_rollup WHERE id = 1
