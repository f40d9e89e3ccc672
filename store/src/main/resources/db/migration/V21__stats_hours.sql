-- Punctual schema, version 21: the statistics rolled up per hour beside the minutes (issue 24), so
-- that a read of a day or a week (GET /api/v1/stats) reads one row per hour, namespace and type
-- instead of about one per attempt.
--
-- job_stats_hours: the sum of the settled minutes of job_stats_minutes of each hour (the same
-- counts; the histograms added bucket by bucket, as StatsHistogram merges them), written by the
-- reaper's StatsRollup once the hour's minutes are no longer rewritten. Counts and buckets are
-- bigint: an hour's sums are exact whatever the rate.
CREATE TABLE job_stats_hours (
    hour         timestamptz NOT NULL,
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
    CONSTRAINT job_stats_hours_pkey PRIMARY KEY (namespace, hour, type)
);

-- The hours before hours_until are in job_stats_hours (null: none yet). Not filled here from the
-- minutes a store already has: that is one pass over every minute row (tens of millions on a large
-- store), and a migration holds every role's start. StatsRollup fills the missing settled hours
-- instead, a bounded number per pass, oldest first; until then the API reads those hours from
-- the minutes as before.
ALTER TABLE job_stats_rollup ADD COLUMN hours_until timestamptz;
