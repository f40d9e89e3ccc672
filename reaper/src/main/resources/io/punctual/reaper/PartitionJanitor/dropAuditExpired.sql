-- Drops the days of the audit log past audit.retention (punctual_drop_audit_partitions, V13).
SELECT punctual_drop_audit_partitions(:before)
