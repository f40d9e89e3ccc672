-- Records how far the hours are filled; never backwards (another reaper may be ahead).
UPDATE job_stats_rollup SET hours_until = GREATEST(hours_until, :hoursUntil) WHERE id = 1
