-- consecutive_failures: of the latest :count jobs of the rule's scope that ended SUCCEEDED or
-- FAILED (latest by scheduled time, within alerts.conditionLookback), how many FAILED.
-- jobs_final_by_namespace serves the scan.
SELECT count(*) AS total, count(*) FILTER (WHERE status = 'FAILED') AS failed,
       (array_agg(id ORDER BY scheduled_at DESC))[1] AS latest
FROM (
    SELECT id, status, scheduled_at
    FROM jobs
    WHERE namespace = :namespace AND status IN ('SUCCEEDED', 'FAILED')
      AND scheduled_at > :since
      AND (CAST(:type AS text) IS NULL OR type = :type)
      AND (CAST(:scheduleId AS uuid) IS NULL OR schedule_id = :scheduleId)
    ORDER BY scheduled_at DESC
    LIMIT :count
) latest
