-- Punctual schema, version 2: the worker registry and retention of old partitions.

-- One row per worker process, written when it starts, on every heartbeat and when it stops. The
-- reaper deletes rows of workers gone for longer than its workerRetention. Which jobs a worker
-- runs is not copied here: jobs.worker_id of the RUNNING jobs says it.
CREATE TABLE workers (
    id                    text        NOT NULL,
    host                  text        NOT NULL,
    pid                   bigint      NOT NULL,
    namespaces            text[]      NOT NULL,
    concurrency           integer     NOT NULL,
    heartbeat_interval_ms bigint      NOT NULL,
    running               integer     NOT NULL DEFAULT 0,
    started_at            timestamptz NOT NULL,
    heartbeat_at          timestamptz NOT NULL,
    stopped_at            timestamptz,
    CONSTRAINT workers_pkey PRIMARY KEY (id)
);

-- punctual_drop_expired_partitions(p_jobs_before, p_executions_before), which drops the daily
-- partitions past retention, is defined in R__partition_functions.sql.
