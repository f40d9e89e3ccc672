-- Every slot held, with its holder (for the Redis mirror).
SELECT namespace, type, key, job_id, attempt FROM limit_slots ORDER BY namespace
