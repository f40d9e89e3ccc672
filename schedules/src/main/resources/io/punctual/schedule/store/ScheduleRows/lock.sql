-- A schedule of a namespace, locked for the rest of the transaction (a planner holding it for a
-- pass is waited for; planners skip it meanwhile).
SELECT * FROM schedules WHERE id = :id AND namespace = :namespace FOR UPDATE
