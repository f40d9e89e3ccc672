-- The key role 'worker': it may only run jobs over the worker protocol (/api/v1/workers) in its
-- namespaces. Checking the constraint again reads api_keys once (a few rows).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check
    CHECK (role IN ('admin', 'operator', 'submitter', 'viewer', 'worker'));
