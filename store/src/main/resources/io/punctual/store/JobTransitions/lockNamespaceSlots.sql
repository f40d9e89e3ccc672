-- Before a claim of jobs of a namespace with a running cap (V27), in its transaction: claims of one
-- such namespace wait for each other here, so each one's claim statement sees the namespace's slots
-- as the one before it left them and picks free slot numbers nobody else is taking.
SELECT pg_advisory_xact_lock(hashtext('punctual.namespace_slots'), hashtext(:namespace))
