-- The days before this are in job_stats_days (null: none yet).
SELECT days_until FROM job_stats_rollup WHERE id = 1
