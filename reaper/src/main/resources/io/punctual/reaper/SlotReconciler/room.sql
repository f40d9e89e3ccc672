-- For one key: its concurrency (NULL: no concurrency limit any more, or no limit) and slots held.
SELECT (SELECT l.concurrency FROM limits l WHERE l.namespace = :namespace AND l.type = :type) AS concurrency,
       (SELECT EXISTS (SELECT 1 FROM limits l WHERE l.namespace = :namespace AND l.type = :type)) AS limited,
       (SELECT count(*) FROM limit_slots s
        WHERE s.namespace = :namespace AND s.type = :type AND s.key = :key) AS held
