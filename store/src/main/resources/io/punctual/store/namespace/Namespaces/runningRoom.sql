-- How many more attempts of a namespace with a running cap (V27) may start now: its max_running
-- less the slots held (negative after the cap was lowered). No row: the namespace has no cap.
SELECT n.max_running - (SELECT count(*) FROM namespace_slots s WHERE s.namespace = n.name) AS room
FROM namespaces n
WHERE n.name = :name AND n.max_running IS NOT NULL
