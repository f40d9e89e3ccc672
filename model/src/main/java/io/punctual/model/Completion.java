package io.punctual.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * What a worker reports when an attempt ends: the job's next state (SUCCEEDED, PENDING for a retry
 * at {@code nextRunAt}, FAILED, or CANCELLED), and what the attempt itself recorded. Applied only
 * if the job is still RUNNING with this attempt number (fencing). {@code spawned}: follow-up jobs
 * the handler asked for, stored in the same transaction only if the job SUCCEEDED with this
 * attempt.
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
    JsonNode result,
    List<NewJob> spawned) {

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
    spawned = spawned == null ? List.of() : List.copyOf(spawned);
    if (!spawned.isEmpty() && nextState != JobState.SUCCEEDED) {
      throw new IllegalArgumentException("only a successful attempt spawns follow-up jobs");
    }
  }

  /**
   * This attempt as a non-retryable failure (transition FAIL) whose error is {@code error}, without
   * result or follow-ups: what becomes of a success whose follow-up jobs the store refused.
   */
  public Completion failed(String error) {
    return new Completion(
        jobId,
        attempt,
        JobState.FAILED,
        null,
        ExecutionStatus.FAILED,
        finishedAt,
        durationMs,
        error,
        null,
        null,
        List.of());
  }
}
