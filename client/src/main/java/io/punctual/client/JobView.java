package io.punctual.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A job as the API returns it. Times are UTC; {@code attempts} counts attempts started so far.
 * {@code traceparent} is the W3C trace context it was submitted with (null: none). {@code
 * scheduleId} and {@code occurrenceAt} name the schedule and fire time it came from (null for other
 * jobs). {@code dependsOn}: what it waits for besides its parent, read with {@link
 * PunctualClient#get} and {@link PunctualClient#cancel}; null in list pages and submit responses,
 * which leave it out. {@code progress}: see {@link ProgressView}.
 */
public record JobView(
    String id,
    String namespace,
    String type,
    JobStatus status,
    JobPriority priority,
    JsonNode payload,
    Instant runAt,
    int attempts,
    int maxAttempts,
    BackoffPolicy backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    Callback callback,
    JsonNode result,
    String lastError,
    String workerId,
    Instant startedAt,
    Instant finishedAt,
    Instant createdAt,
    Instant updatedAt,
    String parentId,
    RunCondition runCondition,
    String workflowId,
    String scheduleId,
    Instant occurrenceAt,
    String traceparent,
    List<DependencyView> dependsOn,
    ProgressView progress) {

  /**
   * How far the job's latest attempt that reported progress got: a percentage, and {@code done} of
   * {@code total} when it reported counts (else null). Read with {@link PunctualClient#get}; null
   * elsewhere and before any report.
   */
  public record ProgressView(
      int attempt, double percent, Long done, Long total, Instant updatedAt) {}

  public JobView {
    tags = tags == null ? List.of() : List.copyOf(tags);
    dependsOn = dependsOn == null ? null : List.copyOf(dependsOn);
  }
}
