-- Punctual schema, version 13: the audit log, one row per mutating API request (POST, PUT, PATCH
-- and DELETE on /api/v1), written by the API through a buffer (api-server io.punctual.api.audit).
--
-- Append-only: UPDATE, DELETE and TRUNCATE are refused by triggers, on the table and on each of its
-- daily partitions (the row trigger below is cloned to every partition; a TRUNCATE trigger is
-- created with each partition by punctual_ensure_audit_partitions). Entries leave only with their
-- whole day: the reaper drops a day's partition once it is older than audit.retention
-- (punctual_drop_audit_partitions). Both functions are defined in R__partition_functions.sql.
--
-- at: when the API answered (its clock, microseconds); id: the order of rows within one instant.
-- key_id, key_name: the API key that sent the request (null when authentication is off, or when a
-- request was refused before its key was known). action: the method and the route template, e.g.
-- 'POST /api/v1/jobs/{id}/cancel'. target: what it acted on (the route's id, or the id of what it
-- created). status: the HTTP status answered; problem: the problem type of a refusal. No body, no
-- header but the request id, and never a secret is stored.
CREATE SEQUENCE audit_log_id_seq AS bigint;

CREATE TABLE audit_log (
    at          timestamptz NOT NULL,
    id          bigint      NOT NULL DEFAULT nextval('audit_log_id_seq'),
    request_id  text,
    key_id      uuid,
    key_name    text,
    namespace   text,
    action      text        NOT NULL,
    target      text,
    status      smallint    NOT NULL,
    problem     text,
    CONSTRAINT audit_log_pkey PRIMARY KEY (at, id)
) PARTITION BY RANGE (at);

ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id;

CREATE FUNCTION punctual_audit_append_only() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'entries leave only with their day''s partition, past audit.retention';
END
$$;

CREATE TRIGGER audit_log_append_only
    BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION punctual_audit_append_only();

CREATE TRIGGER audit_log_no_truncate
    BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION punctual_audit_append_only();
