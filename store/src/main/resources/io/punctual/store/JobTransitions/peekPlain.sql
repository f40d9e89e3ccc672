-- claimPlain.sql's claim read, not written: the rows a plain claim would move to RUNNING, with the
-- same guards (status, attempts left, at most a second before run_at) and the same one question
-- whether the namespace has any limit, paused type or running cap (then the one row returned says
-- JUDGE and the caller runs claim.sql on the same ids in the same transaction). The worker holds
-- each row's next attempt (attempt + 1) under its Redlock lease and writes the claim only if the
-- attempt outlives worker.claimWriteAfter (writeClaims.sql); an attempt that ends sooner is
-- claimed and ended in one write (succeedRetryOrFail.sql's *_UNWRITTEN transitions), one row
-- version instead of two. Returns the rows as they are (PENDING), verdict CLAIMED.
WITH plain AS (
    SELECT NOT EXISTS (SELECT 1 FROM limits l WHERE l.namespace = CAST(:namespace AS text))
       AND NOT EXISTS (SELECT 1 FROM paused_types p WHERE p.namespace = CAST(:namespace AS text))
       AND NOT EXISTS (SELECT 1 FROM namespaces n
                       WHERE n.name = CAST(:namespace AS text) AND n.max_running IS NOT NULL) AS ok
)
SELECT j.*, CAST(NULL AS text) AS limit_key, CAST(NULL AS integer) AS limit_concurrency,
       'CLAIMED' AS verdict, CAST(NULL AS bigint) AS next_ms
FROM jobs j
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
UNION ALL
SELECT (CAST(NULL AS jobs)).*, CAST(NULL AS text), CAST(NULL AS integer), 'JUDGE', CAST(NULL AS bigint)
FROM plain WHERE NOT ok
