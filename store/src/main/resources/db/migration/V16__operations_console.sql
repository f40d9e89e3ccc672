-- Punctual schema, version 16: what the operations console's REST routes need (issue 24).
--
-- 1. workers.types: the job types a worker has a handler for, as it registered (null: a worker of
--    an older release that did not say; the diagnosis then cannot tell whether it serves a type).
ALTER TABLE workers ADD COLUMN types text[];

-- 2. Bulk actions (POST /api/v1/jobs/bulk): one row per action, written by the API instance that
--    runs it and read by any (GET /api/v1/jobs/bulk/{id}). The jobs it acts on are fixed when it
--    is accepted (bulk_action_jobs, the rows matching the filter then), so "count" is exact and
--    done + failed reaches it; a job whose state changed in between is counted in "failed".
--    key_id: the API key that asked (the audit log has the request itself).
CREATE TABLE bulk_actions (
    id          uuid        NOT NULL,
    namespace   text        NOT NULL,
    action      text        NOT NULL,
    filter      jsonb       NOT NULL,
    status      text        NOT NULL,
    count       integer     NOT NULL,
    done        integer     NOT NULL DEFAULT 0,
    failed      integer     NOT NULL DEFAULT 0,
    key_id      uuid,
    error       text,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT bulk_actions_pkey PRIMARY KEY (id),
    CONSTRAINT bulk_actions_action_check CHECK (action IN ('retry', 'cancel')),
    CONSTRAINT bulk_actions_status_check CHECK (status IN ('running', 'done', 'failed'))
);
CREATE INDEX bulk_actions_created ON bulk_actions (created_at);

-- The jobs of a bulk action, in the order they are worked through (id descending, as listed);
-- rows leave as their batch is done.
CREATE TABLE bulk_action_jobs (
    bulk_id          uuid        NOT NULL,
    job_id           uuid        NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    CONSTRAINT bulk_action_jobs_pkey PRIMARY KEY (bulk_id, job_id)
);

-- 3. Statistics (GET /api/v1/stats, /stats/series): attempts rolled up per minute, namespace and
--    type by the reaper (StatsRollup) from job_executions. Counts per outcome of the attempts that
--    finished in the minute; "started": attempts that started in it; the two histograms are
--    fixed log-scale buckets (StatsHistogram: bucket 0 < 1 ms, bucket i covers
--    [2^((i-1)/4), 2^(i/4)) ms, 128 buckets) of the finished attempts' durations and of the first
--    attempts' start lag (started_at - scheduled_at), which merge by adding them up.
CREATE TABLE job_stats_minutes (
    minute       timestamptz NOT NULL,
    namespace    text        NOT NULL,
    type         text        NOT NULL,
    started      integer     NOT NULL DEFAULT 0,
    succeeded    integer     NOT NULL DEFAULT 0,
    failed       integer     NOT NULL DEFAULT 0,
    timed_out    integer     NOT NULL DEFAULT 0,
    cancelled    integer     NOT NULL DEFAULT 0,
    lost         integer     NOT NULL DEFAULT 0,
    duration_ms  integer[]   NOT NULL,
    start_lag_ms integer[]   NOT NULL,
    CONSTRAINT job_stats_minutes_pkey PRIMARY KEY (namespace, minute, type)
);

-- How far the rollup has got (one row).
CREATE TABLE job_stats_rollup (
    id          integer     NOT NULL,
    done_until  timestamptz NOT NULL,
    CONSTRAINT job_stats_rollup_pkey PRIMARY KEY (id),
    CONSTRAINT job_stats_rollup_one CHECK (id = 1)
);

-- The rollup reads the attempts that finished in a few minutes. job_executions is append-only and
-- written in about finished_at order, so a BRIN index serves that at almost no cost to the insert
-- (a page range is summarized by vacuum, not by each insert).
CREATE INDEX job_executions_finished_brin ON job_executions USING brin (finished_at);

-- 4. GET /api/v1/jobs?payload=... (JSON containment) is served by the optional GIN index
--    jobs_payload (jsonb_path_ops), which is NOT created here: it costs every row version of every
--    job (submit, claim, finish) an index insert. PayloadIndex builds it partition by partition
--    without blocking writers when reaper.payloadIndex is true (docs/performance.md has its cost).
