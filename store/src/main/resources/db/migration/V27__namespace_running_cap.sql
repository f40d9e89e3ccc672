-- Punctual schema, version 27: no namespace holds every slot. A namespace's quota may cap how long
-- one attempt of its jobs runs (max_timeout_ms) and how many of its attempts run at once across the
-- fleet (max_running). The running cap is held like a limit's concurrency (V14): one numbered slot
-- per running attempt, taken by the claim statement that starts the attempt and given back by the
-- statement that ends it (finish, cancel, rescue), matched by job and attempt number, so a crashed
-- worker's slot goes back with its rescue and a stale attempt never frees its successor's.
ALTER TABLE namespaces
    ADD COLUMN max_running    integer,
    ADD COLUMN max_timeout_ms bigint,
    ADD CONSTRAINT namespaces_max_running_check
        CHECK (max_running IS NULL OR max_running BETWEEN 1 AND 10000),
    ADD CONSTRAINT namespaces_max_timeout_check
        CHECK (max_timeout_ms IS NULL OR max_timeout_ms > 0);

-- The slots of a namespace with max_running: slot numbers 1..max_running; the primary key makes a
-- (max_running + 1)th holder impossible under any race.
CREATE TABLE namespace_slots (
    namespace        text        NOT NULL,
    slot             integer     NOT NULL,
    job_id           uuid        NOT NULL,
    job_scheduled_at timestamptz NOT NULL,
    attempt          integer     NOT NULL,
    taken_at         timestamptz NOT NULL,
    CONSTRAINT namespace_slots_pkey PRIMARY KEY (namespace, slot)
);
CREATE UNIQUE INDEX namespace_slots_attempt ON namespace_slots (job_id, attempt);
