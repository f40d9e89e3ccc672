-- Rolled-up minutes past retention (the execution history's). :before is a whole hour, so the
-- minutes and the hours (expireHours.sql) leave together and an hour's row never outlives a part
-- of its minutes.
DELETE FROM job_stats_minutes WHERE minute < :before
