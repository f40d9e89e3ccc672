-- Records how far the rollup has got; never backwards (another reaper may be ahead).
INSERT INTO job_stats_rollup (id, done_until) VALUES (1, :doneUntil)
ON CONFLICT (id) DO UPDATE SET done_until = GREATEST(job_stats_rollup.done_until, EXCLUDED.done_until)
