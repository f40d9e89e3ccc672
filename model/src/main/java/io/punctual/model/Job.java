package io.punctual.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A job as stored in PostgreSQL (one row of {@code jobs}). {@code scheduleId} and {@code
 * occurrenceAt} say which schedule and which of its fire times the job came from (null for other
 * jobs; a schedule's {@code trigger} sets only the schedule). {@code traceparent} is the W3C trace
 * context of what submitted it ({@link TraceParent}), or null.
 */
public record Job(
    UUID id,
    String namespace,
    String type,
    JsonNode payload,
    Priority priority,
    JobState status,
    Instant runAt,
    int attempt,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    JsonNode callback,
    JsonNode result,
    String lastError,
    String workerId,
    Instant heartbeatAt,
    Instant startedAt,
    Instant finishedAt,
    Instant createdAt,
    Instant updatedAt,
    UUID parentId,
    UUID scheduleId,
    UUID workflowId,
    RunCondition runCondition,
    Instant occurrenceAt,
    String traceparent) {

  /** The partition key, derived from the id. */
  public Instant scheduledAt() {
    return JobId.scheduledAt(id);
  }

  /** Whether another attempt may follow a failure of the current one. */
  public boolean hasAttemptsLeft() {
    return attempt < maxAttempts;
  }
}
