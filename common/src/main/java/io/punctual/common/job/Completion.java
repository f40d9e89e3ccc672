package io.punctual.common.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What a worker reports when an attempt ends: the job's next state (SUCCEEDED, PENDING for a retry
 * at {@code nextRunAt}, FAILED, or CANCELLED), and what the attempt itself recorded. Applied only
 * if the job is still RUNNING with this attempt number (fencing).
 */
public record Completion(
    UUID jobId,
    int attempt,
    JobState nextState,
    Instant nextRunAt,
    ExecutionStatus executionStatus,
    Instant finishedAt,
    long durationMs,
    String error,
    String stackTrace,
    JsonNode result) {

  public Completion {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(nextState, "nextState");
    Objects.requireNonNull(executionStatus, "executionStatus");
    Objects.requireNonNull(finishedAt, "finishedAt");
    if (!JobState.RUNNING.canMoveTo(nextState)) {
      throw new IllegalStateTransitionException(JobState.RUNNING, nextState);
    }
    if (nextState == JobState.PENDING && nextRunAt == null) {
      throw new IllegalArgumentException("a retry needs nextRunAt");
    }
  }
}
