-- The minutes a pass computes again are replaced whole (a group may have disappeared: an attempt
-- counted as started while running whose job was then cancelled without a recorded attempt).
DELETE FROM job_stats_minutes WHERE minute >= :start AND minute < :end
