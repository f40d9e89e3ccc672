-- Punctual schema, version 25: summarised audit entries. (V24 is left to another change of the same
-- release; Flyway applies versions in order whatever the gaps.)
--
-- Besides one row per mutating request (kind 'request', as before), the API writes rows that each
-- stand for many events, so that a flood costs a handful of rows instead of one per request:
--
--   kind 'refusals': refused authentications (401), counted per source address, minute, reason and
--     route. count: how many; first_at/at: the first and last of them; source: the client address
--     as the server saw it; reason: 'no key', 'not a Bearer key', 'unknown key' or 'expired key';
--     action: the route, status 401 and problem the unauthorized type. No key, namespace, target or
--     request id (they differ from one request to the next, and the keys are not keys).
--   kind 'dropped': entries an API process left out because its buffer was full (PostgreSQL slow
--     or away), one row per stretch of them, written once there was room again. count: how many;
--     first_at/at: the first and the last left out; action '(audit buffer full)', status 0.
--
-- Adding columns with constant defaults rewrites nothing: existing rows read as kind 'request',
-- count 1. The append-only triggers are untouched.
ALTER TABLE audit_log
    ADD COLUMN kind     text        NOT NULL DEFAULT 'request',
    ADD COLUMN count    integer     NOT NULL DEFAULT 1,
    ADD COLUMN first_at timestamptz,
    ADD COLUMN source   text,
    ADD COLUMN reason   text;
