-- Punctual schema, version 10: a BLOCKED job counts the edges it still waits on, so that the end of
-- one job it waits for is judged on that edge alone (DependencyResolver): a fan-in job waiting for
-- N children used to read its N edges and their N states at the end of each child, O(N^2) in all.
--
-- waiting_for: for a BLOCKED job, how many of its edges lead to jobs that have not ended yet. Set
-- to the number of its edges when it is stored (a job stored after some of them ended is judged in
-- the same transaction, which counts again), lowered under the job's lock by each step that ends
-- one of them, and checked against all edges when it reaches zero. Null for other jobs, and for a
-- BLOCKED job never counted (it is then judged on all its edges). Every process that ends jobs must
-- run a version that keeps the count: stop older workers, reapers, planners and APIs before this.
ALTER TABLE jobs ADD COLUMN waiting_for integer;

UPDATE jobs j
SET waiting_for = (
    SELECT count(*)
    FROM job_dependencies d
    LEFT JOIN jobs u ON u.id = d.depends_on_id AND u.scheduled_at = d.depends_on_scheduled_at
    WHERE d.job_id = j.id
      AND u.status IN ('BLOCKED', 'PENDING', 'RUNNING'))
WHERE j.status = 'BLOCKED';
