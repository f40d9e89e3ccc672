-- Creates the audit log's days ahead (punctual_ensure_audit_partitions, V13); returns tables created.
SELECT punctual_ensure_audit_partitions(:from, :to)
