SELECT punctual_ensure_audit_partitions(:from, :to)
