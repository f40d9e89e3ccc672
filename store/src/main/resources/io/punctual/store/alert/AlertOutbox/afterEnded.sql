-- The outbox rows of attempts that just ended, written in the transaction of the step that ended
-- them (a finish, a rescue), one per rule of the job's namespace that the ending matches:
-- job_failed (the job is now FAILED), timed_out (the attempt TIMED_OUT), duration_over (the
-- attempt ran longer than the rule's threshold), attempts_rescued (the attempt was LOST). The
-- subject of each is the job's type: one incident per rule and type. Reads no status: the caller
-- passes only the attempts its own guarded statement applied.
--
-- Recoveries (V18): a job that SUCCEEDED clears the incidents of its type of the job_failed and
-- timed_out rules, and of the duration_over rules when its attempt ran within the threshold. A
-- recovery row (recovery true, one per rule and type however many jobs succeeded here) is written
-- only while the rule has an incident open for the type or an event for it still in the outbox,
-- and no recovery row already follows the last of those events: a success with nothing to clear
-- writes nothing.
WITH v AS (
    SELECT * FROM unnest(:ids, :scheduledMs, :attempts, :failed, :succeeded, :execStatuses,
                         :durationsMs, :errors)
                  AS v(id, ms, attempt, failed, succeeded, exec_status, duration_ms, error)
), ended AS (
    SELECT v.*, j.namespace, j.type, j.schedule_id
    FROM v
    JOIN jobs j ON j.id = ANY(:ids) AND j.id = v.id AND j.scheduled_at = punctual_ms(v.ms)
               AND j.scheduled_at BETWEEN :minScheduled AND :maxScheduled
), matched AS (
    SELECT r.id AS rule_id, r.event, r.threshold_ms, e.*
    FROM ended e
    JOIN alert_rules r ON r.namespace = e.namespace
                      AND (r.job_type IS NULL OR r.job_type = e.type)
                      AND (r.schedule_id IS NULL OR r.schedule_id = e.schedule_id)
), events AS (
    SELECT m.rule_id, 'type:' || m.type AS subject, m.id AS job_id,
           jsonb_build_object('jobId', m.id, 'type', m.type, 'attempt', m.attempt,
                              'scheduleId', m.schedule_id, 'executionStatus', m.exec_status,
                              'durationMs', m.duration_ms, 'error', left(m.error, 500)) AS detail,
           false AS recovery
    FROM matched m
    WHERE (m.event = 'job_failed' AND m.failed)
       OR (m.event = 'timed_out' AND m.exec_status = 'TIMED_OUT')
       OR (m.event = 'duration_over' AND m.duration_ms > m.threshold_ms)
       OR (m.event = 'attempts_rescued' AND m.exec_status = 'LOST')
), recovered AS (
    -- One success per rule and type, the first by id, before anything is looked up: what decides
    -- whether a recovery row is due depends on the rule and the type only, so a batch of a hundred
    -- successes of one type looks at the incidents and the outbox once, not a hundred times.
    SELECT DISTINCT ON (m.rule_id, m.type)
           m.rule_id, m.type, m.id, m.attempt, m.schedule_id, m.duration_ms
    FROM matched m
    WHERE m.succeeded
      AND (m.event IN ('job_failed', 'timed_out')
           OR (m.event = 'duration_over' AND m.duration_ms <= m.threshold_ms))
    ORDER BY m.rule_id, m.type, m.id
), recoveries AS (
    SELECT s.rule_id, 'type:' || s.type AS subject, s.id AS job_id,
           jsonb_build_object('jobId', s.id, 'type', s.type, 'attempt', s.attempt,
                              'scheduleId', s.schedule_id, 'durationMs', s.duration_ms) AS detail,
           true AS recovery
    FROM recovered s
    WHERE (EXISTS (SELECT 1 FROM alert_incidents i
                   WHERE i.rule_id = s.rule_id AND i.subject = 'type:' || s.type)
           OR EXISTS (SELECT 1 FROM alert_events o
                      WHERE o.rule_id = s.rule_id AND o.subject = 'type:' || s.type
                        AND o.folded_at IS NULL AND NOT o.recovery))
      -- Not again while a recovery not folded yet follows the last event of the subject.
      AND NOT EXISTS (SELECT 1 FROM alert_events o
                      WHERE o.rule_id = s.rule_id AND o.subject = 'type:' || s.type
                        AND o.folded_at IS NULL AND o.recovery
                        AND o.id > COALESCE((SELECT max(x.id) FROM alert_events x
                                             WHERE x.rule_id = s.rule_id
                                               AND x.subject = 'type:' || s.type
                                               AND x.folded_at IS NULL AND NOT x.recovery), 0))
)
INSERT INTO alert_events (rule_id, subject, job_id, detail, occurred_at, recovery)
SELECT rule_id, subject, job_id, detail, CAST(:now AS timestamptz), recovery FROM events
UNION ALL
SELECT rule_id, subject, job_id, detail, CAST(:now AS timestamptz), recovery FROM recoveries
