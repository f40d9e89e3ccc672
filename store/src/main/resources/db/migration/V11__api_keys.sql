-- Punctual schema, version 11: API keys. A key is a high-entropy secret the API hands out once;
-- what is kept is a public prefix (its first 12 characters, shown in listings and logs) and the
-- SHA-256 of the whole secret, compared in constant time. A revoked key keeps its row (revoked_at
-- set) so that the audit log can still name it.
CREATE TABLE api_keys (
    id            uuid        NOT NULL,
    name          text        NOT NULL,
    prefix        text        NOT NULL,
    secret_sha256 bytea       NOT NULL,
    role          text        NOT NULL,
    namespaces    text[]      NOT NULL,
    created_at    timestamptz NOT NULL,
    last_used_at  timestamptz,
    expires_at    timestamptz,
    revoked_at    timestamptz,
    CONSTRAINT api_keys_pkey PRIMARY KEY (id),
    CONSTRAINT api_keys_secret_unique UNIQUE (secret_sha256),
    CONSTRAINT api_keys_role_check CHECK (role IN ('admin', 'operator', 'submitter', 'viewer')),
    CONSTRAINT api_keys_namespaces_check CHECK (cardinality(namespaces) >= 1),
    CONSTRAINT api_keys_hash_check CHECK (octet_length(secret_sha256) = 32)
);

-- Authentication finds a presented key by its prefix.
CREATE INDEX api_keys_prefix_idx ON api_keys (prefix);
