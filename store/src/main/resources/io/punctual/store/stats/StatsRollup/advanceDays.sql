-- Records how far the days are filled; never backwards (another reaper may be ahead).
UPDATE job_stats_rollup SET days_until = GREATEST(days_until, :daysUntil) WHERE id = 1
