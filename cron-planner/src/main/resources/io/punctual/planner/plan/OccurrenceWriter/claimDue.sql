-- The planner's claim: active schedules due for planning, earliest first, locked for this
-- transaction. SKIP LOCKED lets any number of planners split the due schedules between them
-- without waiting for each other or planning one twice. schedules_plan_at serves it, so the cost
-- follows the number of due schedules, not of all schedules. Schedules of a deactivated namespace
-- wait (their fire times pass unplanned; on reactivation each schedule's misfire policy decides,
-- as after a planner outage).
SELECT * FROM schedules
WHERE status = 'ACTIVE' AND plan_at <= :now
  AND NOT EXISTS (
    SELECT 1 FROM namespaces n WHERE n.name = schedules.namespace AND NOT n.active)
ORDER BY plan_at
LIMIT :limit
FOR UPDATE SKIP LOCKED
