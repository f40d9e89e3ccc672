-- Rolled-up days that start before :before (expire.sql's whole hour): a day whose first hours
-- are gone leaves with them, and is read from its remaining hours.
DELETE FROM job_stats_days WHERE day < :before
