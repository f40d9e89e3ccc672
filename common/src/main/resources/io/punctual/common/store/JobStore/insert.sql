-- A new job: PENDING, or BLOCKED when it waits for other jobs (its edges are stored beside it).
INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at, attempt,
                  max_attempts, backoff, timeout_ms, idempotency_key, tags, callback, created_at,
                  updated_at, schedule_id, workflow_id, occurrence_at, parent_id, run_condition,
                  waiting_for)
VALUES (:id, :scheduledAt, :namespace, :type, CAST(:payload AS jsonb), :priority, :status, :runAt,
        0, :maxAttempts, CAST(:backoff AS jsonb), :timeoutMs, :idempotencyKey, :tags,
        CAST(:callback AS jsonb), :now, :now, :scheduleId, :workflowId, :occurrenceAt, :parentId,
        :runCondition, :waitingFor)
