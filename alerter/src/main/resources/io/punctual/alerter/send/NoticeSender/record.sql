-- The outcome of an attempt, by the alerter that holds it (same attempt number): sent; or pending
-- again at :nextAttemptAt; or failed when :giveUp.
UPDATE alert_deliveries
SET status = CASE WHEN :sent THEN 'sent' WHEN :giveUp THEN 'failed' ELSE 'pending' END,
    sent_at = CASE WHEN :sent THEN CAST(:now AS timestamptz) ELSE sent_at END,
    next_attempt_at = CASE WHEN :sent OR :giveUp THEN next_attempt_at
                           ELSE CAST(:nextAttemptAt AS timestamptz) END,
    last_response = :response, last_error = :error
WHERE id = :id AND attempts = :attempt AND status = 'pending'
