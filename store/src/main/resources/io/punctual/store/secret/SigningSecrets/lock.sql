-- One namespace's secrets change one at a time (the last one is never deleted, a missing one is
-- made once): a transaction lock on the namespace's name.
SELECT pg_advisory_xact_lock(hashtextextended('punctual.signing-secrets:' || :namespace, 0))
