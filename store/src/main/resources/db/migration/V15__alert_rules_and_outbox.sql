-- Punctual schema, version 15: alert rules, the outbox their events are written to, the incidents
-- those events open, and every notice sent for them (docs/architecture.md, Alerts).
--
-- A rule belongs to a namespace and watches one kind of event (event), narrowed by a job type or
-- a schedule where that applies, with the parameters its kind takes (count, percent, window_ms,
-- threshold_ms: null where they do not apply). It notifies one URL, as a signed webhook or as a
-- Slack message (channel).
CREATE TABLE alert_rules (
    id           uuid        NOT NULL,
    namespace    text        NOT NULL,
    name         text        NOT NULL,
    event        text        NOT NULL,
    job_type     text,
    schedule_id  uuid,
    count        integer,
    percent      integer,
    window_ms    bigint,
    threshold_ms bigint,
    channel      text        NOT NULL,
    url          text        NOT NULL,
    cooldown_ms  bigint      NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    CONSTRAINT alert_rules_pkey PRIMARY KEY (id),
    CONSTRAINT alert_rules_name_key UNIQUE (namespace, name),
    CONSTRAINT alert_rules_event_check CHECK (event IN ('job_failed', 'consecutive_failures',
        'failure_rate', 'timed_out', 'duration_over', 'fire_time_missed', 'waiting_over',
        'no_worker', 'attempts_rescued')),
    CONSTRAINT alert_rules_channel_check CHECK (channel IN ('webhook', 'slack')),
    CONSTRAINT alert_rules_cooldown_check CHECK (cooldown_ms >= 0)
);

-- The outbox: one row per event a rule matched, written in the transaction that made the event
-- happen (the finish that made a job FAILED, the rescue of a lost attempt) or by the alerter's
-- evaluator (fire times the planner recorded as missed or skipped). The alerter folds rows into
-- incidents (folded_at) and deletes them; one with an event_key is kept while the evaluator could
-- find its event again (alerts.missedLookback), so that finding it again is a no-op.
CREATE TABLE alert_events (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    rule_id     uuid        NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    subject     text        NOT NULL,
    job_id      uuid,
    event_key   text,
    detail      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    occurred_at timestamptz NOT NULL,
    folded_at   timestamptz,
    CONSTRAINT alert_events_pkey PRIMARY KEY (id)
);
CREATE INDEX alert_events_unfolded ON alert_events (id) WHERE folded_at IS NULL;
CREATE UNIQUE INDEX alert_events_key ON alert_events (rule_id, event_key) WHERE event_key IS NOT NULL;

-- One open incident per rule and subject (a job type, a schedule, the namespace): opened by the
-- first event or by the condition becoming true, deleted when it clears (a resolved notice).
CREATE TABLE alert_incidents (
    rule_id       uuid        NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    subject       text        NOT NULL,
    id            uuid        NOT NULL,
    opened_at     timestamptz NOT NULL,
    last_event_at timestamptz NOT NULL,
    events        integer     NOT NULL DEFAULT 1,
    detail        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT alert_incidents_pkey PRIMARY KEY (rule_id, subject)
);

-- Every notice: a firing one when an incident opens, a resolved one when it clears. dedup_key is
-- unique (a notice is created once, however often the alerter runs) and is the webhook-id sent.
-- status: pending (due at next_attempt_at, which a sender's claim pushes on by its lease), sent,
-- failed (attempts used up) or held (the cooldown held it back and the incident cleared first).
CREATE TABLE alert_deliveries (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    rule_id         uuid        NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    incident_id     uuid        NOT NULL,
    subject         text        NOT NULL,
    kind            text        NOT NULL,
    dedup_key       text        NOT NULL,
    payload         jsonb       NOT NULL,
    status          text        NOT NULL DEFAULT 'pending',
    attempts        integer     NOT NULL DEFAULT 0,
    due_at          timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    last_attempt_at timestamptz,
    last_response   integer,
    last_error      text,
    sent_at         timestamptz,
    created_at      timestamptz NOT NULL,
    CONSTRAINT alert_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT alert_deliveries_dedup_key UNIQUE (dedup_key),
    CONSTRAINT alert_deliveries_kind_check CHECK (kind IN ('firing', 'resolved')),
    CONSTRAINT alert_deliveries_status_check CHECK (status IN ('pending', 'sent', 'failed', 'held'))
);
-- The sender's way in: pending notices by due time.
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
-- A rule's notices, newest first (GET /alert-rules/{id}/deliveries), and the latest firing notice
-- of a rule and subject (the cooldown).
CREATE INDEX alert_deliveries_rule ON alert_deliveries (rule_id, id);
CREATE INDEX alert_deliveries_subject ON alert_deliveries (rule_id, subject, id) WHERE kind = 'firing';

-- fire_time_missed reads the fire times the planner recorded without a job, newest first.
CREATE INDEX schedule_occurrences_unrun ON schedule_occurrences (created_at) WHERE outcome <> 'job';
