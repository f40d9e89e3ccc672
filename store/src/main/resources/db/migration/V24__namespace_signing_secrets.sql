-- Punctual schema, version 24: each namespace signs its deliveries (http callbacks, alert notices)
-- with secrets of its own. A row is one active secret; deleting it revokes it. Every namespace has
-- at least one: its first is made with it (the API at start makes one for every namespace that has
-- none, the worker and the alerter for a namespace they sign for that has none), and the last one
-- cannot be deleted.
--
-- secret: the key's bytes sealed with the deployment's secrets.encryptionKey (AES-256-GCM, the
--   namespace and the id as associated data, so a row copied to another namespace does not open),
--   or the bytes themselves when the operator chose secrets.storePlain; key_id says which
--   ('plain', or the first 16 hex digits of the SHA-256 of the encryption key).
-- No foreign key to namespaces: a namespace a job names need not have a row (V12).
CREATE TABLE namespace_signing_secrets (
    id         uuid        NOT NULL,
    namespace  text        NOT NULL,
    secret     bytea       NOT NULL,
    key_id     text        NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT namespace_signing_secrets_pkey PRIMARY KEY (id)
);

CREATE INDEX namespace_signing_secrets_namespace
    ON namespace_signing_secrets (namespace, created_at);
