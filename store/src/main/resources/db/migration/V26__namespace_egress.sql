-- Punctual schema, version 26: what each namespace's http callbacks may reach, and whether their
-- answers are kept. The deployment's worker.http.allow is the ceiling; an admin grants a namespace
-- part of it (PUT /api/v1/namespaces/{name}/egress). A namespace without a grant reaches the public
-- internet only.
--   egress_allow: CIDR blocks, addresses and host names granted (each within the ceiling when
--     granted; the workers intersect it with the ceiling again when they call).
--   keep_callback_response: whether a callback's 2xx answer is stored as its job's result (off:
--     the result records the status only).
ALTER TABLE namespaces
    ADD COLUMN egress_allow           text[]  NOT NULL DEFAULT '{}',
    ADD COLUMN keep_callback_response boolean NOT NULL DEFAULT false;
