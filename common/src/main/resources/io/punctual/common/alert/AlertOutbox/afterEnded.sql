-- The outbox rows of attempts that just ended, written in the transaction of the step that ended
-- them (a finish, a rescue), one per rule of the job's namespace that the ending matches:
-- job_failed (the job is now FAILED), timed_out (the attempt TIMED_OUT), duration_over (the
-- attempt ran longer than the rule's threshold), attempts_rescued (the attempt was LOST). The
-- subject of each is the job's type: one incident per rule and type. Reads no status: the caller
-- passes only the attempts its own guarded statement applied.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts, :failed, :execStatuses, :durationsMs, :errors)
                  AS v(id, ms, attempt, failed, exec_status, duration_ms, error)
), ended AS (
    SELECT v.*, j.namespace, j.type, j.schedule_id
    FROM v
    JOIN jobs j ON j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
               AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
)
INSERT INTO alert_events (rule_id, subject, job_id, detail, occurred_at)
SELECT r.id, 'type:' || e.type, e.id,
       jsonb_build_object('jobId', e.id, 'type', e.type, 'attempt', e.attempt,
                          'scheduleId', e.schedule_id, 'executionStatus', e.exec_status,
                          'durationMs', e.duration_ms, 'error', left(e.error, 500)),
       :now
FROM ended e
JOIN alert_rules r ON r.namespace = e.namespace
                  AND (r.job_type IS NULL OR r.job_type = e.type)
                  AND (r.schedule_id IS NULL OR r.schedule_id = e.schedule_id)
WHERE (r.event = 'job_failed' AND e.failed)
   OR (r.event = 'timed_out' AND e.exec_status = 'TIMED_OUT')
   OR (r.event = 'duration_over' AND e.duration_ms > r.threshold_ms)
   OR (r.event = 'attempts_rescued' AND e.exec_status = 'LOST')
