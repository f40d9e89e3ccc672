-- Punctual schema, version 14: flow control. Limits on how many attempts of a job type run at once
-- (per key) and how often they start, paused job types, and the slots that tie a running attempt to
-- its limit. PostgreSQL is the truth for all of it; Redis holds only the jobs waiting for a slot
-- (hold sets) and a mirror count, both rebuilt from here (docs/architecture.md, Limits).

-- A job's own key for limits declared with "key": "concurrencyKey" (given at submit; NULL: none).
ALTER TABLE jobs ADD COLUMN concurrency_key text;

-- One limit per (namespace, type). key_field: NULL (one limit for the type), 'concurrencyKey' (the
-- job's concurrency_key) or a top-level payload field; each distinct value has its own limit.
-- concurrency: most attempts RUNNING at once per key; rate_*: at most rate_limit starts per
-- rate_period_ms per key, a token bucket holding rate_burst. At least one of the two.
CREATE TABLE limits (
    namespace                text        NOT NULL,
    name                     text        NOT NULL,
    type                     text        NOT NULL,
    key_field                text,
    concurrency              integer,
    rate_limit               integer,
    rate_period_ms           bigint,
    rate_burst               integer,
    slow_key_on_retry_after  boolean     NOT NULL DEFAULT false,
    declared                 boolean     NOT NULL DEFAULT false,
    created_at               timestamptz NOT NULL,
    updated_at               timestamptz NOT NULL,
    CONSTRAINT limits_pkey PRIMARY KEY (namespace, name),
    CONSTRAINT limits_type_unique UNIQUE (namespace, type),
    CONSTRAINT limits_something_check CHECK (concurrency IS NOT NULL OR rate_limit IS NOT NULL),
    CONSTRAINT limits_concurrency_check CHECK (concurrency IS NULL OR concurrency BETWEEN 1 AND 10000),
    CONSTRAINT limits_rate_check
        CHECK ((rate_limit IS NULL) = (rate_period_ms IS NULL)
               AND (rate_limit IS NULL) = (rate_burst IS NULL)
               AND (rate_limit IS NULL OR (rate_limit > 0 AND rate_period_ms > 0 AND rate_burst > 0)))
);

-- The slots of a key: slot numbers 1..concurrency; the primary key makes a (concurrency + 1)th
-- holder impossible under any race. Each row belongs to one attempt (job_id, attempt): the claim
-- inserts it in the statement that starts the attempt, and the statement that ends the attempt
-- (finish, cancel, rescue) deletes it, matched by job and attempt number.
CREATE TABLE limit_slots (
    namespace        text        NOT NULL,
    type             text        NOT NULL,
    key              text        NOT NULL,
    slot             integer     NOT NULL,
    job_id           uuid        NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    attempt          integer     NOT NULL,
    taken_at         timestamptz NOT NULL,
    CONSTRAINT limit_slots_pkey PRIMARY KEY (namespace, type, key, slot)
);
CREATE UNIQUE INDEX limit_slots_attempt ON limit_slots (job_id, attempt);

-- Rate state per key: the token bucket as a theoretical arrival time (GCRA, tat_ms), and how long
-- a handler asked the key to rest (slowed_until). granted is the answer of the last claim (how many
-- starts it was given), written and returned by the same upsert; interval_ms and tolerance_ms are
-- the limit's as of that claim (period / limit, and (burst - 1) intervals).
CREATE TABLE limit_keys (
    namespace     text             NOT NULL,
    type          text             NOT NULL,
    key           text             NOT NULL,
    tat_ms        double precision NOT NULL,
    granted       integer          NOT NULL DEFAULT 0,
    interval_ms   double precision NOT NULL DEFAULT 1,
    tolerance_ms  double precision NOT NULL DEFAULT 0,
    slowed_until  timestamptz,
    CONSTRAINT limit_keys_pkey PRIMARY KEY (namespace, type, key)
);

-- A start a rate limit promised a job for later (its token is spent): the job is queued again at
-- that time and starts then without taking another token. Used and deleted by the claim.
CREATE TABLE limit_reservations (
    job_id   uuid        NOT NULL,
    attempt  integer     NOT NULL,
    start_at timestamptz NOT NULL,
    CONSTRAINT limit_reservations_pkey PRIMARY KEY (job_id)
);

-- Job types of a namespace whose jobs do not start (running attempts finish).
CREATE TABLE paused_types (
    namespace text        NOT NULL,
    type      text        NOT NULL,
    paused_at timestamptz NOT NULL,
    CONSTRAINT paused_types_pkey PRIMARY KEY (namespace, type)
);
