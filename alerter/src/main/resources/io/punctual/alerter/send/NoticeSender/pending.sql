-- Notices waiting to be sent (a gauge).
SELECT count(*) FROM alert_deliveries WHERE status = 'pending'
