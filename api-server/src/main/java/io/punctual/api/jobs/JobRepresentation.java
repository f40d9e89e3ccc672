package io.punctual.api.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.job.Backoff;
import io.punctual.common.job.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A job as the API shows it. Every field is always present (null when unset). {@code scheduleId}
 * and {@code occurrenceAt} name the schedule a job came from and which of its fire times it is.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record JobRepresentation(
    String id,
    String namespace,
    String type,
    String status,
    String priority,
    JsonNode payload,
    Instant runAt,
    int attempts,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    JsonNode callback,
    JsonNode result,
    String lastError,
    String workerId,
    Instant startedAt,
    Instant finishedAt,
    Instant createdAt,
    Instant updatedAt,
    String parentId,
    String runCondition,
    String workflowId,
    String scheduleId,
    Instant occurrenceAt) {

  public static JobRepresentation of(Job job) {
    return new JobRepresentation(
        job.id().toString(),
        job.namespace(),
        job.type(),
        job.status().name(),
        job.priority().wireName(),
        job.payload(),
        job.runAt(),
        job.attempt(),
        job.maxAttempts(),
        job.backoff(),
        job.timeout(),
        job.idempotencyKey(),
        job.tags(),
        job.callback(),
        job.result(),
        job.lastError(),
        job.workerId(),
        job.startedAt(),
        job.finishedAt(),
        job.createdAt(),
        job.updatedAt(),
        job.parentId() == null ? null : job.parentId().toString(),
        job.runCondition() == null ? null : job.runCondition().wireName(),
        job.workflowId() == null ? null : job.workflowId().toString(),
        job.scheduleId() == null ? null : job.scheduleId().toString(),
        job.occurrenceAt());
  }
}
