-- For the rest of the transaction of a statement that works on a batch of job keys (claim,
-- heartbeat, finish): no sequential scans and no nested loops. Such a statement reaches jobs
-- through "id = ANY(:ids)" on the primary key and joins its per-job values by hash or merge, so
-- its cost grows with the batch, never with the partition. Left to itself the planner may, until
-- a busy partition has been analyzed, take the partition for tiny and the pending or running jobs
-- in it for few, and loop over all of them once per job of the batch. (The state indexes cannot
-- serve these statements either: see the note on them in V1.)
--
-- And no JIT compilation. Before PostgreSQL 18 a plan that still needs a disabled node (claim.sql
-- has one nested loop no other join can replace: the LATERAL that picks free slots) is charged
-- disable_cost, 1e10, so its estimate passes jit_above_cost, jit_inline_above_cost and
-- jit_optimize_above_cost (100,000 and 500,000 by default) and a server built with LLVM compiled
-- and optimized the whole plan, some 300 functions, on every execution: seconds of CPU for a
-- statement that runs in a millisecond (docs/supported-versions.md, "Slow claims on PostgreSQL 15"). PostgreSQL 18 counts
-- disabled nodes apart from the cost and never got there. A batch of key lookups gains nothing from
-- JIT at any size.
SELECT set_config('enable_seqscan', 'off', true), set_config('enable_nestloop', 'off', true),
       set_config('jit', 'off', true)
