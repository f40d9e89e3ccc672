-- A notice, due at :dueAt; a second one with the same dedup key is a no-op.
INSERT INTO alert_deliveries (rule_id, incident_id, subject, kind, dedup_key, payload, due_at,
                              next_attempt_at, created_at)
VALUES (:ruleId, :incidentId, :subject, :kind, :dedupKey, CAST(:payload AS jsonb), :dueAt, :dueAt,
        :now)
ON CONFLICT (dedup_key) DO NOTHING
