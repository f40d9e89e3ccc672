-- Punctual schema, version 5: jobs that wait for other jobs (a parent with a run condition,
-- dependencies), workflows submitted as one graph, and the two states that come with them.

-- BLOCKED: waiting for a parent or dependencies (not in Redis). SKIPPED: final, never ran because a
-- run condition can no longer hold. Final states and finished_at still go together.
ALTER TABLE jobs DROP CONSTRAINT jobs_status_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_status_check
    CHECK (status IN ('BLOCKED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'));
ALTER TABLE jobs DROP CONSTRAINT jobs_finished_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_finished_check
    CHECK ((status IN ('SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED')) = (finished_at IS NOT NULL));
ALTER TABLE jobs ADD CONSTRAINT jobs_run_condition_check
    CHECK (run_condition IN ('on_success', 'on_failure', 'always'));

-- One row per edge "job waits for depends_on": the parent edge (kind 'parent', also shown as
-- jobs.parent_id / run_condition) and every dependency (kind 'dependency'; required = on_success,
-- optional = always). Not partitioned: a job's edges are found by its key, and the jobs waiting
-- for a job that just ended by depends_on_id (the index below), whatever day either is scheduled
-- on. Both scheduled times are kept so that every join back to jobs names its partition.
CREATE TABLE job_dependencies (
    job_id                  uuid        NOT NULL,
    job_scheduled_at        timestamptz NOT NULL,
    depends_on_id           uuid        NOT NULL,
    depends_on_scheduled_at timestamptz NOT NULL,
    namespace               text        NOT NULL,
    condition               text        NOT NULL,
    kind                    text        NOT NULL,
    CONSTRAINT job_dependencies_pkey PRIMARY KEY (job_id, depends_on_id),
    CONSTRAINT job_dependencies_not_self CHECK (job_id <> depends_on_id),
    CONSTRAINT job_dependencies_condition_check CHECK (condition IN ('on_success', 'on_failure', 'always')),
    CONSTRAINT job_dependencies_kind_check CHECK (kind IN ('parent', 'dependency'))
);
CREATE INDEX job_dependencies_upstream ON job_dependencies (depends_on_id);

-- A workflow: a graph of jobs submitted in one call (POST /api/v1/workflows). Its steps keep the
-- caller's refs, in the order given. An idempotency key makes a repeated submission return the
-- workflow already stored (request_hash tells a true repeat from a different graph).
CREATE TABLE workflows (
    id              uuid        NOT NULL,
    namespace       text        NOT NULL,
    idempotency_key text,
    request_hash    text,
    created_at      timestamptz NOT NULL,
    cancelled_at    timestamptz,
    CONSTRAINT workflows_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX workflows_idempotency ON workflows (namespace, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

CREATE TABLE workflow_steps (
    workflow_id      uuid        NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    position         integer     NOT NULL,
    ref              text        NOT NULL,
    job_id           uuid        NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    CONSTRAINT workflow_steps_pkey PRIMARY KEY (workflow_id, position),
    CONSTRAINT workflow_steps_ref_unique UNIQUE (workflow_id, ref)
);

CREATE INDEX workflows_created ON workflows (created_at);

-- Retention counts BLOCKED among the states that keep a day's partitions alive: see
-- punctual_drop_expired_partitions in R__partition_functions.sql.
