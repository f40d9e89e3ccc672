-- An incident cleared while the cooldown still held its firing notice (never tried, due later):
-- that notice is dropped as held, and no resolved notice follows it.
UPDATE alert_deliveries
SET status = 'held', last_error = 'the incident cleared while the cooldown held this notice'
WHERE incident_id = :incidentId AND kind = 'firing' AND status = 'pending' AND attempts = 0
  AND due_at > :now
RETURNING id
