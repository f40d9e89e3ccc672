-- The first day retention leaves whole (the days before it are dropped, expireDays.sql); never
-- backwards.
UPDATE job_stats_rollup SET days_from = GREATEST(days_from, :daysFrom) WHERE id = 1
