-- Punctual schema, version 4: recurring schedules, and the occurrences the planner materialised
-- from them as ordinary jobs.

-- One row per schedule: when it fires (a cron expression or a fixed interval, in a time zone,
-- between optional bounds), what each occurrence runs (the fields of a job), and where the planner
-- stands with it. Names are unique per namespace; init_identifier, when set, is the key under
-- which a service declares the schedule at start-up (an idempotent upsert, see below).
CREATE TABLE schedules (
    id              uuid        NOT NULL,
    namespace       text        NOT NULL,
    name            text        NOT NULL,
    init_identifier text,
    -- When.
    cron            text,
    every_ms        bigint,
    time_zone       text        NOT NULL DEFAULT 'UTC',
    dst_gap         text        NOT NULL DEFAULT 'shift',
    dst_overlap     text        NOT NULL DEFAULT 'first',
    start_at        timestamptz,
    end_at          timestamptz,
    misfire         text        NOT NULL DEFAULT 'fire_once',
    overlap         text        NOT NULL DEFAULT 'allow',
    -- What each occurrence runs.
    type            text        NOT NULL,
    payload         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    priority        smallint    NOT NULL DEFAULT 2,
    max_attempts    integer     NOT NULL,
    backoff         jsonb       NOT NULL,
    timeout_ms      bigint,
    tags            text[]      NOT NULL DEFAULT '{}',
    callback        jsonb,
    -- Where the planner stands.
    status          text        NOT NULL DEFAULT 'ACTIVE',
    -- The first fire time not materialised yet (null: the schedule has no fire time left).
    next_fire_at    timestamptz,
    -- When a planner should look at the schedule next (null: never). Only ACTIVE schedules with
    -- plan_at <= now are read, through schedules_plan_at, so a pass costs O(due schedules).
    plan_at         timestamptz,
    -- The latest fire time materialised (as a job, or recorded as skipped).
    last_fire_at    timestamptz,
    -- The latest job the schedule created (occurrence or trigger): overlap 'skip' asks whether it
    -- is still running.
    last_job_id     uuid,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT schedules_pkey PRIMARY KEY (id),
    CONSTRAINT schedules_name_key UNIQUE (namespace, name),
    CONSTRAINT schedules_status_check CHECK (status IN ('ACTIVE', 'PAUSED')),
    CONSTRAINT schedules_when_check CHECK ((cron IS NULL) <> (every_ms IS NULL)),
    CONSTRAINT schedules_every_check CHECK (every_ms IS NULL OR every_ms > 0),
    CONSTRAINT schedules_bounds_check CHECK (start_at IS NULL OR end_at IS NULL OR end_at > start_at),
    CONSTRAINT schedules_dst_check
        CHECK (dst_gap IN ('shift', 'skip') AND dst_overlap IN ('first', 'both')),
    CONSTRAINT schedules_misfire_check CHECK (misfire IN ('fire_once', 'fire_all', 'skip')),
    CONSTRAINT schedules_overlap_check CHECK (overlap IN ('allow', 'skip')),
    CONSTRAINT schedules_priority_check CHECK (priority BETWEEN 0 AND 3),
    CONSTRAINT schedules_attempts_check CHECK (max_attempts >= 1)
);

-- Static registration: one schedule per (namespace, init_identifier).
CREATE UNIQUE INDEX schedules_init_identifier ON schedules (namespace, init_identifier)
    WHERE init_identifier IS NOT NULL;

-- The planner's way in: active schedules due for planning, earliest first.
CREATE INDEX schedules_plan_at ON schedules (plan_at) WHERE status = 'ACTIVE' AND plan_at IS NOT NULL;

-- One row per fire time of a schedule that the planner materialised: as a job (outcome 'job'), or
-- recorded without one because the previous run was still going (overlap 'skip') or because it was
-- missed while nothing ran (misfire 'skip', and what fire_all leaves beyond its cap). The primary
-- key is what makes double materialisation impossible: the row is inserted in the transaction
-- that inserts the job, with ON CONFLICT DO NOTHING, and a job is inserted only for a row that was.
-- Cancelling a not-yet-started occurrence (PUT, pause, delete) removes its row in the same
-- transaction, so the fire time can be planned again under the new definition. Rows are kept for
-- planner.occurrenceRetention (pruned while the schedule is planned), long past any chance of that
-- fire time being planned again.
CREATE TABLE schedule_occurrences (
    schedule_id uuid        NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    fire_at     timestamptz NOT NULL,
    job_id      uuid,
    outcome     text        NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT schedule_occurrences_pkey PRIMARY KEY (schedule_id, fire_at),
    CONSTRAINT schedule_occurrences_outcome_check
        CHECK (outcome IN ('job', 'skipped_overlap', 'missed')),
    CONSTRAINT schedule_occurrences_job_check CHECK ((outcome = 'job') = (job_id IS NOT NULL))
);

-- A schedule's jobs, newest first (GET /schedules/{id}/jobs), and its PENDING ones (cancelled when
-- it is changed, paused or deleted): V1's jobs_schedule index on schedule_id alone could find them
-- but not in id order, which a page of a schedule with many jobs needs. Same entries, one more
-- column.
DROP INDEX jobs_schedule;
CREATE INDEX jobs_schedule ON jobs (schedule_id, id) WHERE schedule_id IS NOT NULL;

-- Which fire time of its schedule a job is (jobs.schedule_id already says which schedule). Null for
-- other jobs and for a schedule's on-demand trigger. Adding a nullable column without a default
-- changes only the catalog, whatever the size of jobs.
ALTER TABLE jobs ADD COLUMN occurrence_at timestamptz;
