-- Punctual schema, version 1: jobs, their attempts, idempotency keys and partition maintenance.
--
-- jobs and job_executions are partitioned by RANGE on the job's scheduled time (daily partitions,
-- UTC days). The scheduled time is embedded in the job id (a UUIDv7-shaped id whose timestamp is
-- the scheduled time), so every lookup by id names its partition. run_at is the *next* due time
-- (it moves on retries); scheduled_at never changes, so a row never moves between partitions.

CREATE TABLE jobs (
    id              uuid        NOT NULL,
    scheduled_at    timestamptz NOT NULL,
    namespace       text        NOT NULL DEFAULT 'default',
    type            text        NOT NULL,
    payload         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    priority        smallint    NOT NULL DEFAULT 2,
    status          text        NOT NULL DEFAULT 'PENDING',
    run_at          timestamptz NOT NULL,
    attempt         integer     NOT NULL DEFAULT 0,
    max_attempts    integer     NOT NULL,
    backoff         jsonb       NOT NULL,
    timeout_ms      bigint,
    idempotency_key text,
    tags            text[]      NOT NULL DEFAULT '{}',
    callback        jsonb,
    result          jsonb,
    last_error      text,
    worker_id       text,
    heartbeat_at    timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    -- Room for later capabilities: workflows (parent + run condition, dependencies) and schedules.
    parent_id       uuid,
    run_condition   text,
    workflow_id     uuid,
    schedule_id     uuid,
    CONSTRAINT jobs_pkey PRIMARY KEY (id, scheduled_at),
    CONSTRAINT jobs_status_check
        CHECK (status IN ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    -- Final states and finished_at go together (see JobState).
    CONSTRAINT jobs_finished_check
        CHECK ((status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) = (finished_at IS NOT NULL)),
    CONSTRAINT jobs_priority_check CHECK (priority BETWEEN 0 AND 3),
    CONSTRAINT jobs_attempt_check CHECK (attempt >= 0 AND max_attempts >= 1 AND attempt <= max_attempts)
) PARTITION BY RANGE (scheduled_at);

-- Indexes are partial where they can be: a job's status changes on every transition, so an index
-- on a plain column would get a new entry for each new row version. These get one only while the
-- row is in the state the index serves, which keeps the claim/finish path to about two index
-- writes per job (the primary key and the one partial index of the new state).
--
-- The two state indexes carry a second, always-true condition on purpose: the claim, heartbeat
-- and finish statements look jobs up by key *and* status ('PENDING' or 'RUNNING'), and with a
-- predicate of status alone the planner may read the whole state index of a partition and
-- hash-join it (its estimate of "status = 'PENDING'" is a guess until the partition is
-- analyzed), which costs O(pending jobs) per claim instead of one primary-key probe per job.
-- Those statements do not imply the extra condition, so they cannot use these indexes; the
-- range scans they exist for (run_at <= x, heartbeat_at < x) imply it and still do.
-- Promoter and reconciliation: pending jobs by due time.
CREATE INDEX jobs_pending_run_at ON jobs (run_at) WHERE status = 'PENDING' AND run_at IS NOT NULL;
-- Reaper: running jobs by last heartbeat.
CREATE INDEX jobs_running_heartbeat ON jobs (heartbeat_at)
    WHERE status = 'RUNNING' AND heartbeat_at IS NOT NULL;
-- Triage: failed jobs per namespace, newest first.
CREATE INDEX jobs_failed ON jobs (namespace, id) WHERE status = 'FAILED';
-- Tag filters; jobs without tags stay out of the GIN index.
CREATE INDEX jobs_tags ON jobs USING gin (tags) WHERE tags <> '{}';
CREATE INDEX jobs_schedule ON jobs (schedule_id) WHERE schedule_id IS NOT NULL;
CREATE INDEX jobs_parent ON jobs (parent_id) WHERE parent_id IS NOT NULL;

-- One row per attempt, in the same partitions as its job (partitioned by the job's scheduled time).
CREATE TABLE job_executions (
    job_id           uuid        NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    attempt          integer     NOT NULL,
    namespace        text        NOT NULL,
    worker_id        text        NOT NULL,
    status           text        NOT NULL,
    started_at       timestamptz NOT NULL,
    finished_at      timestamptz,
    duration_ms      bigint,
    error            text,
    stack_trace      text,
    result           jsonb,
    CONSTRAINT job_executions_pkey PRIMARY KEY (job_id, job_scheduled_at, attempt),
    CONSTRAINT job_executions_status_check
        CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'LOST'))
) PARTITION BY RANGE (job_scheduled_at);

-- Idempotency keys must be unique per namespace across all partitions, which a partitioned table
-- cannot enforce (its unique indexes must contain the partition key); hence this small table.
CREATE TABLE idempotency_keys (
    namespace    text        NOT NULL,
    key          text        NOT NULL,
    job_id       uuid        NOT NULL,
    request_hash text        NOT NULL,
    created_at   timestamptz NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (namespace, key)
);

-- punctual_ensure_partitions(p_from, p_to), which creates the daily partitions, is defined in
-- R__partition_functions.sql (the current definition of every partition function).

-- Epoch milliseconds to timestamptz (batched statements pass times as bigint[]). The body must be
-- immutable itself so that PostgreSQL inlines it (an interval addition on timestamptz is only
-- stable, and a non-inlined call per row cost more than the rest of a claim). to_timestamp rounds
-- to the microsecond, so whole milliseconds come out exact.
CREATE FUNCTION punctual_ms(ms bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT to_timestamp(ms::double precision / 1000) $$;
