-- transition: CLAIM
-- claim.sql for a batch of one namespace (:namespace) that has no limit, no paused type and no
-- running cap: PENDING -> RUNNING with attempt + 1 (the fencing token), worker and start time on
-- the job row, guarded as in claim.sql (status, attempts left, at most a second before run_at), in
-- one UPDATE by primary key. Nothing of claim.sql's judging applies to such a batch, and its CTEs
-- (the candidates materialized, their claim order found by array_position, the limit branches run
-- empty, the admitted jobs joined back) cost about as much as the update itself. Whether the
-- namespace has any limit, paused type or cap is asked once for the batch, in this statement's
-- snapshot, as claim.sql asks it per job: when it has one, nothing is claimed and the one row
-- returned says JUDGE (its job columns null), and the caller runs claim.sql on the same ids in the
-- same transaction. Returns the claimed rows in claim.sql's shape (verdict CLAIMED).
WITH plain AS (
    SELECT NOT EXISTS (SELECT 1 FROM limits l WHERE l.namespace = CAST(:namespace AS text))
       AND NOT EXISTS (SELECT 1 FROM paused_types p WHERE p.namespace = CAST(:namespace AS text))
       AND NOT EXISTS (SELECT 1 FROM namespaces n
                       WHERE n.name = CAST(:namespace AS text) AND n.max_running IS NOT NULL) AS ok
), claimed AS (
    UPDATE jobs j
    SET status = 'RUNNING', attempt = j.attempt + 1, worker_id = :workerId,
        started_at = GREATEST(j.run_at, CAST(:now AS timestamptz)),
        heartbeat_at = :now, updated_at = :now
    WHERE j.id = ANY(:ids)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      -- IS TRUE: the namespace is checked on each row found by key, not used to find rows. A plain
      -- "j.namespace = ..." implies the predicate of jobs_pending_by_type (V3), and in a partition
      -- not yet analyzed (a new day's, or one just truncated) the planner took that index and
      -- filtered every pending job of the namespace, once per batch: O(pending) per claim.
      AND (j.namespace = CAST(:namespace AS text)) IS TRUE
      AND j.status = 'PENDING' AND j.attempt < j.max_attempts
      AND COALESCE(j.run_at, CAST(:now AS timestamptz)) <= CAST(:now AS timestamptz) + interval '1 second'
      AND (SELECT ok FROM plain)
    RETURNING j.*
)
SELECT c.*, CAST(NULL AS text) AS limit_key, CAST(NULL AS integer) AS limit_concurrency,
       'CLAIMED' AS verdict, CAST(NULL AS bigint) AS next_ms
FROM claimed c
UNION ALL
SELECT (CAST(NULL AS jobs)).*, CAST(NULL AS text), CAST(NULL AS integer), 'JUDGE', CAST(NULL AS bigint)
FROM plain WHERE NOT ok
