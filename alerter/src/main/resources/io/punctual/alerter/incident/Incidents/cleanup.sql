-- Folded events the evaluator can no longer find again.
DELETE FROM alert_events WHERE folded_at IS NOT NULL AND occurred_at < :before
