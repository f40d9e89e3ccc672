-- PENDING jobs of a namespace, counted up to :cap (an index-only walk of jobs_pending_by_type that
-- stops at the cap, so a namespace with millions pending costs no more than the cap).
SELECT count(*)
FROM (SELECT 1 FROM jobs WHERE namespace = :name AND status = 'PENDING' LIMIT :cap) pending
