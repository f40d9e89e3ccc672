-- transition: CLAIM
-- Confirms Redis claims: PENDING -> RUNNING with attempt + 1 (the fencing token), worker and start
-- time on the job row. Jobs no longer PENDING (cancelled, or claimed by someone else) are simply
-- not returned. The attempt's execution row is written when it ends (succeedRetryOrFail.sql); until
-- then the job row is the record of the running attempt. The BETWEEN bounds (the batch's earliest
-- and latest scheduled times) let the planner keep only the partitions involved; id = ANY(...)
-- makes the primary key the way in (one probe per job, see keyLookupsOnly.sql). A job is claimed at
-- most a second before its run_at: a worker claims up to worker.claimAhead (at most PT1S) ahead and
-- its handler starts at run_at, never before (JobExecutor waits), so started_at is the later of the
-- claim and run_at: when the handler starts. The same bound keeps a queue entry that outlived a
-- retry (a reconciliation racing the attempt) from claiming the job long before its new run_at.
-- The COALESCE (run_at is never null) keeps this from implying the pending index's predicate.
--
-- Limits (V14, docs/architecture.md): a job whose type is paused is refused (PAUSED). A job whose
-- type has a limit is locked first (SKIP LOCKED: one being claimed or cancelled elsewhere is left
-- out) and judged by its key: a key a handler slowed refuses it until then (LATER); a key without a
-- free slot refuses it (NO_SLOT); a rate limit gives tokens in claim order, and the jobs it cannot
-- start now get a reserved start (their token is spent, limit_reservations) and are refused until
-- up to a second before it (LATER); claimed within that second, such a job is started at its
-- reserved time exactly (started_at, which the worker waits for, as for run_at), so a worker
-- claiming ahead neither misses the start nor spends a round trip per early try. A reserved start
-- missed by more than one interval (a late worker) is void and the job asks for a token again, so
-- late jobs never start in a bunch. A job admitted under a concurrency limit takes a free slot number of its key, for
-- its new attempt, in this statement: the primary key of limit_slots makes a slot taken twice
-- impossible, and a job whose insert lost a race is refused (NO_SLOT), not started.
--
-- A namespace's running cap (V27, namespaces.max_running) works like a concurrency limit on the
-- whole namespace, after the type's limits: a job that nothing else refuses takes a free slot
-- number of its namespace (namespace_slots) for its new attempt in this statement, or is refused
-- (NAMESPACE_FULL). A job whose namespace has no room left is refused before its type's limits are asked,
-- so it spends no rate token. A job that needs both a slot of its key and one of its namespace gets
-- the namespace's only once it holds the key's. Claims of one capped namespace are serialized by an
-- advisory lock the caller takes before this statement (lockNamespaceSlots.sql) and names here
-- (:cappedNamespace), so their slot numbers never collide: a collision would leave a key slot taken
-- by a job that does not start. A capped namespace's jobs in a claim that did not take its lock (a
-- worker that has not read the cap yet) are all refused (NAMESPACE_FULL), and nothing is taken.
-- Returns the claimed rows (verdict CLAIMED; limit_concurrency set when it holds a slot) and the
-- refused ones as they are (still PENDING) with the verdict, key and when to come back.
WITH cand AS (
    SELECT j.id, j.scheduled_at, j.namespace, j.type, array_position(CAST(:ids AS uuid[]), j.id) AS ord,
           j.attempt + 1 AS attempt, l.type IS NOT NULL AS limited, p.type IS NOT NULL AS paused,
           l.concurrency, l.rate_limit, n.max_running,
           CAST(l.rate_period_ms AS double precision) / l.rate_limit AS interval_ms,
           CAST(l.rate_period_ms AS double precision) / l.rate_limit * (l.rate_burst - 1) AS tolerance_ms,
           CASE WHEN l.key_field IS NULL THEN ''
                WHEN l.key_field = 'concurrencyKey' THEN COALESCE(j.concurrency_key, '')
                ELSE COALESCE(j.payload ->> l.key_field, '') END AS key
    FROM jobs j
    LEFT JOIN limits l ON l.namespace = j.namespace AND l.type = j.type
    LEFT JOIN paused_types p ON p.namespace = j.namespace AND p.type = j.type
    LEFT JOIN namespaces n ON n.name = j.namespace
    WHERE j.id = ANY(:ids)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt < j.max_attempts
      AND COALESCE(j.run_at, CAST(:now AS timestamptz)) <= CAST(:now AS timestamptz) + interval '1 second'
), locked AS (
    SELECT j.id, j.attempt + 1 AS attempt
    FROM jobs j
    WHERE j.id = ANY(:ids)
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.id IN (SELECT c.id FROM cand c
                   WHERE (c.limited OR c.max_running IS NOT NULL) AND NOT c.paused)
      AND j.status = 'PENDING' AND j.attempt < j.max_attempts
    FOR NO KEY UPDATE OF j SKIP LOCKED
), ns_room AS (
    -- Per capped namespace of the batch: its cap and its free slots now (none without its lock).
    SELECT c.namespace, max(c.max_running) AS max_running,
           CASE WHEN c.namespace = CAST(:cappedNamespace AS text)
                THEN max(c.max_running) - (SELECT count(*) FROM namespace_slots s
                                           WHERE s.namespace = c.namespace)
                ELSE 0 END AS room
    FROM cand c WHERE c.max_running IS NOT NULL
    GROUP BY c.namespace
), lc AS (
    SELECT c.id, c.scheduled_at, c.namespace, c.type, c.key, c.ord, lk.attempt, c.concurrency,
           c.rate_limit, c.interval_ms, c.tolerance_ms, c.max_running,
           COALESCE(nr.room <= 0, false) AS ns_full,
           r.job_id IS NOT NULL AS reserved, r.start_at AS reserved_at,
           COALESCE(ks.slowed_until > CAST(:now AS timestamptz), false) AS slowed, ks.slowed_until,
           row_number() OVER (PARTITION BY c.namespace, c.type, c.key
                              ORDER BY r.job_id IS NULL, c.ord) AS k,
           row_number() OVER (PARTITION BY c.namespace, c.type, c.key, r.job_id IS NULL
                              ORDER BY c.ord) AS uk
    FROM cand c
    JOIN locked lk ON lk.id = c.id
    LEFT JOIN limit_reservations r ON r.job_id = c.id AND r.attempt = lk.attempt
          AND r.start_at >= CAST(:now AS timestamptz) - c.interval_ms * interval '1 millisecond'
    LEFT JOIN limit_keys ks ON ks.namespace = c.namespace AND ks.type = c.type AND ks.key = c.key
    LEFT JOIN ns_room nr ON nr.namespace = c.namespace
    WHERE c.limited
), keyed AS (
    SELECT g.namespace, g.type, g.key, g.concurrency, g.rate_limit,
           CASE WHEN g.concurrency IS NULL THEN g.want
                ELSE LEAST(g.want, GREATEST(0, g.concurrency - (
                    SELECT count(*) FROM limit_slots s
                    WHERE s.namespace = g.namespace AND s.type = g.type AND s.key = g.key))) END AS room
    FROM (SELECT namespace, type, key, max(concurrency) AS concurrency,
                 max(rate_limit) AS rate_limit, count(*) AS want
          FROM lc WHERE NOT slowed AND NOT ns_full GROUP BY namespace, type, key) g
), asks AS (
    -- Per rate-limited key, the unreserved jobs that have room: the tokens this claim asks for.
    SELECT lc.namespace, lc.type, lc.key, max(lc.interval_ms) AS interval_ms,
           max(lc.tolerance_ms) AS tolerance_ms, count(*) AS asked
    FROM lc
    JOIN keyed kd ON kd.namespace = lc.namespace AND kd.type = lc.type AND kd.key = lc.key
    WHERE kd.rate_limit IS NOT NULL AND NOT lc.slowed AND NOT lc.reserved AND lc.k <= kd.room
    GROUP BY lc.namespace, lc.type, lc.key
), bucket AS (
    -- GCRA: tat_ms is when the bucket would be full again; a start is allowed now while
    -- tat - now <= tolerance ((burst - 1) intervals). Every token asked for is spent: those not
    -- allowed now are reserved, each at its own later time. An upsert, so concurrent claims of one
    -- key queue on its row and each sees the other's tokens spent. The inserted values are those of
    -- a new key (full bucket); the update reads how many were asked from them.
    INSERT INTO limit_keys AS b (namespace, type, key, tat_ms, granted, interval_ms, tolerance_ms)
    SELECT a.namespace, a.type, a.key, CAST(:nowMs AS double precision) + a.asked * a.interval_ms,
           LEAST(a.asked, floor(a.tolerance_ms / a.interval_ms + 1e-6) + 1),
           a.interval_ms, a.tolerance_ms
    FROM asks a
    ORDER BY a.namespace, a.type, a.key
    ON CONFLICT (namespace, type, key) DO UPDATE
    SET tat_ms = GREATEST(b.tat_ms, CAST(:nowMs AS double precision))
                 + (EXCLUDED.tat_ms - CAST(:nowMs AS double precision)),
        granted = LEAST(round((EXCLUDED.tat_ms - CAST(:nowMs AS double precision)) / EXCLUDED.interval_ms),
                        GREATEST(0, floor((CAST(:nowMs AS double precision) + EXCLUDED.tolerance_ms
                                           - GREATEST(b.tat_ms, CAST(:nowMs AS double precision)))
                                          / EXCLUDED.interval_ms + 1e-6) + 1)),
        interval_ms = EXCLUDED.interval_ms, tolerance_ms = EXCLUDED.tolerance_ms
    RETURNING b.namespace, b.type, b.key, b.tat_ms, b.granted
), rated AS (
    SELECT lc.*, kd.room,
           CASE WHEN lc.slowed THEN 'SLOWED'
                WHEN lc.ns_full THEN 'NAMESPACE_FULL'
                WHEN lc.k > kd.room THEN 'NO_ROOM'
                WHEN lc.reserved
                     AND lc.reserved_at > CAST(:now AS timestamptz) + interval '1 second' THEN 'EARLY'
                WHEN kd.rate_limit IS NULL OR lc.reserved THEN 'GO'
                WHEN lc.uk <= b.granted THEN 'GO'
                ELSE 'RESERVE' END AS step,
           b.tat_ms - (a.asked - (lc.uk - 1)) * a.interval_ms - a.tolerance_ms AS start_ms
    FROM lc
    LEFT JOIN keyed kd ON kd.namespace = lc.namespace AND kd.type = lc.type AND kd.key = lc.key
    LEFT JOIN asks a ON a.namespace = lc.namespace AND a.type = lc.type AND a.key = lc.key
    LEFT JOIN bucket b ON b.namespace = lc.namespace AND b.type = lc.type AND b.key = lc.key
), go AS (
    SELECT r.*, row_number() OVER (PARTITION BY r.namespace, r.type, r.key ORDER BY r.k) AS n
    FROM rated r WHERE r.step = 'GO'
), free_slots AS (
    SELECT kd.namespace, kd.type, kd.key, f.slot,
           row_number() OVER (PARTITION BY kd.namespace, kd.type, kd.key ORDER BY f.slot) AS n
    FROM keyed kd
    CROSS JOIN LATERAL (
        SELECT g AS slot FROM generate_series(1, kd.concurrency) g
        WHERE NOT EXISTS (SELECT 1 FROM limit_slots s
                          WHERE s.namespace = kd.namespace AND s.type = kd.type AND s.key = kd.key
                            AND s.slot = g)
        ORDER BY g LIMIT kd.room) f
    WHERE kd.concurrency IS NOT NULL AND kd.room > 0
), ns_want AS (
    -- Jobs of capped namespaces that nothing else refuses, in claim order.
    SELECT c.id, c.scheduled_at, c.namespace, lk.attempt, c.ord, c.key,
           CASE WHEN c.limited THEN c.concurrency END AS concurrency,
           row_number() OVER (PARTITION BY c.namespace ORDER BY c.ord) AS n
    FROM cand c
    JOIN locked lk ON lk.id = c.id
    WHERE c.max_running IS NOT NULL AND NOT c.paused
      AND (NOT c.limited OR c.id IN (SELECT g.id FROM go g))
), ns_free AS (
    SELECT r.namespace, f.slot,
           row_number() OVER (PARTITION BY r.namespace ORDER BY f.slot) AS n
    FROM ns_room r
    CROSS JOIN LATERAL (
        SELECT g AS slot FROM generate_series(1, r.max_running) g
        WHERE NOT EXISTS (SELECT 1 FROM namespace_slots s
                          WHERE s.namespace = r.namespace AND s.slot = g)
        ORDER BY g LIMIT r.room) f
    WHERE r.room > 0
), ns_pick AS (
    SELECT w.id, w.scheduled_at, w.namespace, w.attempt, w.concurrency, f.slot
    FROM ns_want w
    JOIN ns_free f ON f.namespace = w.namespace AND f.n = w.n
), taken AS (
    INSERT INTO limit_slots (namespace, type, key, slot, job_id, job_scheduled_at, attempt, taken_at)
    SELECT g.namespace, g.type, g.key, f.slot, g.id, g.scheduled_at, g.attempt, :now
    FROM go g
    JOIN free_slots f ON f.namespace = g.namespace AND f.type = g.type AND f.key = g.key AND f.n = g.n
    WHERE g.concurrency IS NOT NULL
      AND (g.max_running IS NULL OR g.id IN (SELECT p.id FROM ns_pick p))
    ORDER BY g.namespace, g.type, g.key, f.slot -- one order for every claim: no deadlock between two
    ON CONFLICT DO NOTHING
    RETURNING job_id, attempt
), ns_taken AS (
    -- After taken: a job that needs its key's slot takes its namespace's only with it.
    INSERT INTO namespace_slots (namespace, slot, job_id, job_scheduled_at, attempt, taken_at)
    SELECT p.namespace, p.slot, p.id, p.scheduled_at, p.attempt, :now
    FROM ns_pick p
    WHERE p.concurrency IS NULL OR p.id IN (SELECT t.job_id FROM taken t)
    ORDER BY p.namespace, p.slot
    ON CONFLICT DO NOTHING
    RETURNING job_id, attempt
), reserved AS (
    INSERT INTO limit_reservations (job_id, attempt, start_at)
    SELECT r.id, r.attempt, punctual_ms(CAST(ceil(r.start_ms) AS bigint))
    FROM rated r WHERE r.step = 'RESERVE'
    ON CONFLICT (job_id) DO UPDATE SET attempt = EXCLUDED.attempt, start_at = EXCLUDED.start_at
), admitted AS (
    SELECT c.id, c.attempt, CAST(NULL AS text) AS key, CAST(NULL AS integer) AS concurrency,
           CAST(NULL AS timestamptz) AS start_at
    FROM cand c WHERE NOT c.limited AND NOT c.paused AND c.max_running IS NULL
    UNION ALL
    SELECT c.id, c.attempt, CAST(NULL AS text), CAST(NULL AS integer), CAST(NULL AS timestamptz)
    FROM cand c JOIN ns_taken n ON n.job_id = c.id AND n.attempt = c.attempt
    WHERE NOT c.limited
    UNION ALL
    SELECT g.id, g.attempt, g.key, CAST(NULL AS integer), CASE WHEN g.reserved THEN g.reserved_at END
    FROM go g WHERE g.concurrency IS NULL
      AND (g.max_running IS NULL OR g.id IN (SELECT n.job_id FROM ns_taken n))
    UNION ALL
    SELECT g.id, g.attempt, g.key, g.concurrency, CASE WHEN g.reserved THEN g.reserved_at END
    FROM go g JOIN taken t ON t.job_id = g.id AND t.attempt = g.attempt
    WHERE g.max_running IS NULL OR g.id IN (SELECT n.job_id FROM ns_taken n)
), used AS (
    DELETE FROM limit_reservations r USING go g WHERE r.job_id = g.id
      AND g.id IN (SELECT a.id FROM admitted a)
), claimed AS (
    UPDATE jobs j
    SET status = 'RUNNING', attempt = j.attempt + 1, worker_id = :workerId,
        started_at = GREATEST(j.run_at, CAST(:now AS timestamptz), a.start_at),
        heartbeat_at = :now, updated_at = :now
    FROM admitted a
    WHERE j.id = ANY(:ids) AND j.id = a.id
      AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
      AND j.status = 'PENDING' AND j.attempt < j.max_attempts AND j.attempt + 1 = a.attempt
      AND COALESCE(j.run_at, CAST(:now AS timestamptz)) <= CAST(:now AS timestamptz) + interval '1 second'
    RETURNING j.*, a.key AS limit_key, a.concurrency AS limit_concurrency
), refused AS (
    SELECT c.id, 'PAUSED' AS verdict, c.key, c.concurrency, CAST(NULL AS bigint) AS next_ms
    FROM cand c WHERE c.paused
    UNION ALL
    SELECT r.id, 'LATER', r.key, r.concurrency,
           CAST(ceil(EXTRACT(EPOCH FROM (CASE WHEN r.step = 'SLOWED' THEN r.slowed_until
                                              ELSE r.reserved_at END)) * 1000) AS bigint)
    FROM rated r WHERE r.step IN ('SLOWED', 'EARLY')
    UNION ALL
    SELECT r.id, 'LATER', r.key, r.concurrency, CAST(ceil(r.start_ms) AS bigint)
    FROM rated r WHERE r.step = 'RESERVE'
    UNION ALL
    SELECT r.id, 'NO_SLOT', r.key, r.concurrency, CAST(NULL AS bigint)
    FROM rated r WHERE r.step = 'NO_ROOM'
    UNION ALL
    SELECT g.id, 'NO_SLOT', g.key, g.concurrency, CAST(NULL AS bigint)
    FROM go g WHERE g.concurrency IS NOT NULL
      AND (g.max_running IS NULL OR g.id IN (SELECT p.id FROM ns_pick p))
      AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.job_id = g.id)
    UNION ALL
    SELECT r.id, 'NAMESPACE_FULL', r.key, r.concurrency, CAST(NULL AS bigint)
    FROM rated r WHERE r.step = 'NAMESPACE_FULL'
    UNION ALL
    -- No room left in the namespace, or its slot collided (a key slot lost instead is NO_SLOT).
    SELECT w.id, 'NAMESPACE_FULL', w.key, w.concurrency, CAST(NULL AS bigint)
    FROM ns_want w
    WHERE NOT EXISTS (SELECT 1 FROM ns_taken n WHERE n.job_id = w.id)
      AND NOT (w.concurrency IS NOT NULL AND w.id IN (SELECT p.id FROM ns_pick p)
               AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.job_id = w.id))
)
SELECT c.*, 'CLAIMED' AS verdict, CAST(NULL AS bigint) AS next_ms FROM claimed c
UNION ALL
SELECT j.*, r.key, r.concurrency, r.verdict, r.next_ms
FROM jobs j JOIN refused r ON j.id = r.id
WHERE j.id = ANY(:ids) AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
