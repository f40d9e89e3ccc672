-- Punctual schema, version 12: namespaces become rows of their own, each with a switch (active)
-- and quotas. A namespace a job names need not have a row: the API creates the row the first time
-- a key allowed in a namespace submits there (docs/api.md, Namespaces), and a namespace without a
-- row is active and unlimited wherever it is read (the worker, the planner's jobs). Jobs keep their
-- namespace as text, without a foreign key: a submit never waits on this table's row lock.
--
-- Every quota column is nullable: NULL is unlimited.
--   submits_per_second, submit_burst: a token bucket shared by every API server (in Redis); the
--     bucket holds submit_burst tokens and refills submits_per_second a second. A burst given
--     alone makes no sense, so both are set or neither.
--   max_pending: most PENDING jobs of the namespace (as counted by the API, see docs/api.md).
--   max_payload_bytes: largest payload of one job (besides api.maxPayloadBytes, the server's).
-- quota_version grows by one on every change of the quotas, so that the shared token bucket takes
-- the new rate at once (the rate limiter replaces a bucket built under an older version).
CREATE TABLE namespaces (
    name               text        NOT NULL,
    active             boolean     NOT NULL DEFAULT true,
    created_at         timestamptz NOT NULL,
    deactivated_at     timestamptz,
    submits_per_second integer,
    submit_burst       integer,
    max_pending        bigint,
    max_payload_bytes  integer,
    quota_version      bigint      NOT NULL DEFAULT 1,
    CONSTRAINT namespaces_pkey PRIMARY KEY (name),
    CONSTRAINT namespaces_name_check CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'),
    CONSTRAINT namespaces_deactivated_check CHECK (active = (deactivated_at IS NULL)),
    CONSTRAINT namespaces_rate_check
        CHECK ((submits_per_second IS NULL) = (submit_burst IS NULL)
               AND (submits_per_second IS NULL OR submits_per_second > 0)
               AND (submit_burst IS NULL OR submit_burst > 0)),
    CONSTRAINT namespaces_max_pending_check CHECK (max_pending IS NULL OR max_pending >= 0),
    CONSTRAINT namespaces_max_payload_check
        CHECK (max_payload_bytes IS NULL OR max_payload_bytes > 0)
);

-- The namespace every request without a Punctual-Namespace header acts in exists from the start,
-- and so do those an existing deployment's schedules and workers name (small tables; jobs are not
-- scanned: a namespace known only from its jobs gets its row with its next submit).
INSERT INTO namespaces (name, created_at) VALUES ('default', now());
INSERT INTO namespaces (name, created_at)
SELECT DISTINCT name, now()
FROM (SELECT namespace AS name FROM schedules
      UNION SELECT unnest(namespaces) FROM workers) known
WHERE name ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'
ON CONFLICT (name) DO NOTHING;
