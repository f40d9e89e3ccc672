-- New jobs in one statement, one array per column (times as epoch milliseconds, tags as a JSON
-- array per job since SQL arrays cannot be ragged): a batch of hundreds costs one round trip and
-- one statement to parse, where a JDBC batch sends a multi-row INSERT per few dozen jobs. A job
-- starts in one of the initial states: PENDING, or BLOCKED when it waits for other jobs, which is
-- when it has a count of open edges (its edges are stored beside it, and waiting_for counts them:
-- none has ended yet, or the job is judged at once, see V10).
INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at, attempt,
                  max_attempts, backoff, timeout_ms, idempotency_key, tags, callback, created_at,
                  updated_at, schedule_id, workflow_id, occurrence_at, parent_id, run_condition,
                  waiting_for, concurrency_key, traceparent)
SELECT v.id, punctual_ms(v.scheduled_ms), v.namespace, v.type, CAST(v.payload AS jsonb),
       CAST(v.priority AS smallint), CASE WHEN v.waiting_for IS NULL THEN 'PENDING' ELSE 'BLOCKED' END,
       punctual_ms(v.run_ms), 0, v.max_attempts,
       CAST(v.backoff AS jsonb), v.timeout_ms, v.idempotency_key,
       ARRAY(SELECT jsonb_array_elements_text(CAST(v.tags AS jsonb))), CAST(v.callback AS jsonb),
       :now, :now, v.schedule_id, v.workflow_id, punctual_ms(v.occurrence_ms), v.parent_id,
       v.run_condition, v.waiting_for, v.concurrency_key, v.traceparent
FROM unnest(:ids, :scheduledMs, :namespaces, :types, :payloads, :priorities, :runMs,
            :maxAttempts, :backoffs, :timeoutMs, :idempotencyKeys, :tags, :callbacks, :scheduleIds,
            :workflowIds, :occurrenceMs, :parentIds, :runConditions, :waitingFor,
            :concurrencyKeys, :traceparents)
     AS v(id, scheduled_ms, namespace, type, payload, priority, run_ms, max_attempts,
          backoff, timeout_ms, idempotency_key, tags, callback, schedule_id, workflow_id,
          occurrence_ms, parent_id, run_condition, waiting_for, concurrency_key, traceparent)
