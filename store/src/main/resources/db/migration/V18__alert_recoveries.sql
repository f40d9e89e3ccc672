-- Punctual schema, version 18: an incident of a job event (job_failed, timed_out, duration_over)
-- clears on the next success of its subject, not only after alerts.resolveAfter without events
-- (docs/operations.md, Alerts).
--
-- recovery: the row says the subject recovered (a job of the type SUCCEEDED; for duration_over, an
-- attempt that succeeded within the threshold) instead of an event. The finish that ended that job
-- writes it, in its own transaction, only while the rule has an incident open for the subject or
-- an event for it not folded yet, and no recovery row follows that event yet (both looked up by
-- alert_events_unfolded_subject), so a success with nothing to clear writes nothing. The alerter folds the outbox in order: a recovery closes the incident the
-- events before it opened, and writes its resolved notice.
ALTER TABLE alert_events ADD COLUMN recovery boolean NOT NULL DEFAULT false;
CREATE INDEX alert_events_unfolded_subject ON alert_events (rule_id, subject, id)
    WHERE folded_at IS NULL;
