-- (condition) Jobs whose payload contains the given JSON (jsonb containment); served by the
-- optional GIN index jobs_payload (jsonb_path_ops) when it exists, else by reading the range.
AND payload @> CAST(:payload AS jsonb)
