-- Punctual schema, version 22: the statistics rolled up per day beside the hours (issue 24), so
-- that a read of every namespace over weeks (GET /api/v1/stats, up to 31 days) reads one row per
-- day, namespace and type for its whole days instead of 24.
--
-- job_stats_days: the sum of the hours of job_stats_hours of each UTC day (the same counts; the
-- histograms added bucket by bucket), written by the reaper's StatsRollup once all of the day's
-- hours are filled.
CREATE TABLE job_stats_days (
    day          timestamptz NOT NULL,
    namespace    text        NOT NULL,
    type         text        NOT NULL,
    started      bigint      NOT NULL DEFAULT 0,
    succeeded    bigint      NOT NULL DEFAULT 0,
    failed       bigint      NOT NULL DEFAULT 0,
    timed_out    bigint      NOT NULL DEFAULT 0,
    cancelled    bigint      NOT NULL DEFAULT 0,
    lost         bigint      NOT NULL DEFAULT 0,
    duration_ms  bigint[]    NOT NULL,
    start_lag_ms bigint[]    NOT NULL,
    CONSTRAINT job_stats_days_pkey PRIMARY KEY (namespace, day, type)
);

-- The days in [days_from, days_until) are in job_stats_days (null: none yet). days_from is the
-- first day retention left whole: a day whose first hours have expired is dropped with them and
-- read from its remaining hours. As with V21's hours, not filled here: StatsRollup fills the
-- missing whole days from the hours, a bounded number per pass.
ALTER TABLE job_stats_rollup ADD COLUMN days_from timestamptz, ADD COLUMN days_until timestamptz;
