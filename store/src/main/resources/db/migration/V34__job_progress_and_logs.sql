-- What a running handler reports besides its result: its latest progress per attempt, and its log
-- lines per attempt (JobContext.progress and log, the worker protocol's heartbeat). Written by the
-- worker in batches off the claim and finish paths (worker.outputFlushInterval), read by
-- GET /jobs/{id} (progress) and GET /jobs/{id}/logs. Not partitioned: a row names its job's
-- scheduled time, and punctual_drop_expired_partitions deletes a day's rows with that day's
-- execution partition (R__partition_functions.sql).

-- The latest progress of each attempt: a percentage, or done out of total (percent computed).
CREATE TABLE job_progress (
    job_id           uuid        NOT NULL,
    attempt          integer     NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    namespace        text        NOT NULL,
    percent          real        NOT NULL,
    done             bigint,
    total            bigint,
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (job_id, attempt)
);
CREATE INDEX job_progress_scheduled ON job_progress USING brin (job_scheduled_at);

-- An attempt's log lines in the order written (seq from 1), at most worker.logLinesPerAttempt.
CREATE TABLE job_logs (
    job_id           uuid        NOT NULL,
    attempt          integer     NOT NULL,
    seq              integer     NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    namespace        text        NOT NULL,
    logged_at        timestamptz NOT NULL,
    line             text        NOT NULL,
    PRIMARY KEY (job_id, attempt, seq)
);
CREATE INDEX job_logs_scheduled ON job_logs USING brin (job_scheduled_at);
