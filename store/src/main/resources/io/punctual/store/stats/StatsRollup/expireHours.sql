-- Rolled-up hours past retention: the same whole hour as expire.sql.
DELETE FROM job_stats_hours WHERE hour < :before
