-- Creates or replaces the limit :name of a namespace (created_at kept). A limit whose type another
-- limit of the namespace has fails on limits_type_unique (the caller says which).
INSERT INTO limits (namespace, name, type, key_field, concurrency, rate_limit, rate_period_ms,
                    rate_burst, slow_key_on_retry_after, declared, created_at, updated_at)
VALUES (:namespace, :name, :type, :key, :concurrency, :rateLimit, :ratePeriodMs, :rateBurst,
        :slow, :declared, :now, :now)
ON CONFLICT (namespace, name) DO UPDATE
SET type = EXCLUDED.type, key_field = EXCLUDED.key_field, concurrency = EXCLUDED.concurrency,
    rate_limit = EXCLUDED.rate_limit, rate_period_ms = EXCLUDED.rate_period_ms,
    rate_burst = EXCLUDED.rate_burst, slow_key_on_retry_after = EXCLUDED.slow_key_on_retry_after,
    declared = EXCLUDED.declared, updated_at = EXCLUDED.updated_at
RETURNING *
