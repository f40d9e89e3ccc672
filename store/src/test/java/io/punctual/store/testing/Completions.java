package io.punctual.store.testing;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Fixture results of attempts, as a worker reports them: 5 ms long, ended {@code at}. */
public final class Completions {
  private Completions() {}

  /** Attempt {@code attempt} of job {@code id} succeeded, without result or follow-ups. */
  public static Completion success(UUID id, int attempt, Instant at) {
    return new Completion(
        id,
        attempt,
        JobState.SUCCEEDED,
        null,
        ExecutionStatus.SUCCEEDED,
        at,
        5,
        null,
        null,
        null,
        List.of());
  }

  /** Attempt {@code attempt} failed ("boom") and runs again at {@code nextRunAt}. */
  public static Completion retry(UUID id, int attempt, Instant at, Instant nextRunAt) {
    return new Completion(
        id,
        attempt,
        JobState.PENDING,
        nextRunAt,
        ExecutionStatus.FAILED,
        at,
        5,
        "boom",
        "trace",
        null,
        List.of());
  }
}
