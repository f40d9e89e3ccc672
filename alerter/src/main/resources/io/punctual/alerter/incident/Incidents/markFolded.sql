-- Folded events leave the outbox, but those the evaluator could find again (event_key) stay, as
-- folded, for alerts.missedLookback (cleanup.sql).
WITH gone AS (
    DELETE FROM alert_events WHERE id = ANY(:ids) AND event_key IS NULL RETURNING id
)
UPDATE alert_events SET folded_at = :now
WHERE id = ANY(:ids) AND event_key IS NOT NULL
