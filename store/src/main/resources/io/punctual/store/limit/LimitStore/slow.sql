-- A handler asked the key to rest until :until: no job of it starts before then (the later of two
-- requests wins). The bucket columns of a new row are those of a full bucket.
INSERT INTO limit_keys (namespace, type, key, tat_ms, slowed_until)
VALUES (:namespace, :type, :key, 0, :until)
ON CONFLICT (namespace, type, key) DO UPDATE
SET slowed_until = GREATEST(COALESCE(limit_keys.slowed_until, EXCLUDED.slowed_until),
                            EXCLUDED.slowed_until)
