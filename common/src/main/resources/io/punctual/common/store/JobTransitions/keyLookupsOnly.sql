-- For the rest of the transaction of a statement that works on a batch of job keys (claim,
-- heartbeat, finish): no sequential scans and no nested loops. Such a statement reaches jobs
-- through "id = ANY(:ids)" on the primary key and joins its per-job values by hash or merge, so
-- its cost grows with the batch, never with the partition. Left to itself the planner may, until
-- a busy partition has been analyzed, take the partition for tiny and the pending or running jobs
-- in it for few, and loop over all of them once per job of the batch. (The state indexes cannot
-- serve these statements either: see the note on them in V1.)
SELECT set_config('enable_seqscan', 'off', true), set_config('enable_nestloop', 'off', true)
