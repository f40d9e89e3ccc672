-- Rolled-up minutes past retention (the execution history's).
DELETE FROM job_stats_minutes WHERE minute < :before
