-- Locks the jobs among :ids that are still BLOCKED, in id order (every judging transaction locks in
-- the same order, so two of them never wait for each other in a circle). Two dependencies of one
-- job that end at the same moment in two transactions are judged one after the other: the second
-- waits here for the first to commit, and its next statement sees both ends (and, a locking read
-- returning the latest row version, the count of open edges the first one left: V10).
SELECT id, waiting_for FROM jobs
WHERE id = ANY(:ids)
  AND scheduled_at BETWEEN :minScheduled AND :maxScheduled
  AND status = 'BLOCKED'
ORDER BY id
FOR UPDATE
