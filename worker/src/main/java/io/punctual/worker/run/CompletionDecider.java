package io.punctual.worker.run;

import io.punctual.model.Backoff;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Turns how an attempt ended into what the job becomes: SUCCEEDED; PENDING again at {@code now +
 * max(backoff, retryAfter)} while attempts remain and the failure is retryable; FAILED otherwise;
 * CANCELLED when it was cancelled while running; PENDING again at once, recorded HANDED_BACK, when
 * the worker's shutdown grace ended first (written by transition HAND_BACK, which does not use up
 * an attempt).
 */
public final class CompletionDecider {
  private final Clock clock;
  private final RandomGenerator random;

  public CompletionDecider(Clock clock, RandomGenerator random) {
    this.clock = clock;
    this.random = random;
  }

  public Completion decide(Job job, Outcome outcome, long durationMs) {
    Instant now = clock.instant();
    return switch (outcome) {
      case Outcome.Succeeded s ->
          new Completion(
              job.id(),
              job.attempt(),
              JobState.SUCCEEDED,
              null,
              ExecutionStatus.SUCCEEDED,
              now,
              durationMs,
              null,
              null,
              s.result(),
              s.spawned());
      case Outcome.Failed f ->
          failure(
              job,
              now,
              durationMs,
              f.retryable(),
              f.retryAfter(),
              ExecutionStatus.FAILED,
              f.error(),
              f.stackTrace());
      case Outcome.TimedOut t ->
          failure(
              job,
              now,
              durationMs,
              true,
              null,
              ExecutionStatus.TIMED_OUT,
              t.timeout() == null ? "timed out" : "timed out after " + t.timeout(),
              null);
      case Outcome.HandedBack h -> handedBack(job, h.error(), now, durationMs);
      case Outcome.Cancelled c ->
          new Completion(
              job.id(),
              job.attempt(),
              JobState.CANCELLED,
              null,
              ExecutionStatus.CANCELLED,
              now,
              durationMs,
              "cancelled",
              null,
              null,
              List.of());
    };
  }

  /** The attempt given back to the queue (transition HAND_BACK): PENDING again, due now. */
  public static Completion handedBack(Job job, String error, Instant now, long durationMs) {
    return new Completion(
        job.id(),
        job.attempt(),
        JobState.PENDING,
        now,
        ExecutionStatus.HANDED_BACK,
        now,
        durationMs,
        error,
        null,
        null,
        List.of());
  }

  private Completion failure(
      Job job,
      Instant now,
      long durationMs,
      boolean retryable,
      Duration retryAfter,
      ExecutionStatus status,
      String error,
      String stackTrace) {
    boolean retry = retryable && job.hasAttemptsLeft();
    Instant nextRunAt = retry ? now.plus(retryDelay(job, retryAfter)) : null;
    return new Completion(
        job.id(),
        job.attempt(),
        retry ? JobState.PENDING : JobState.FAILED,
        nextRunAt,
        status,
        now,
        durationMs,
        error,
        stackTrace,
        null,
        List.of());
  }

  /** {@code max(backoff.delayAfter(attempt), retryAfter)}. */
  Duration retryDelay(Job job, Duration retryAfter) {
    Backoff backoff = job.backoff() == null ? Backoff.DEFAULT : job.backoff();
    Duration delay = backoff.delayAfter(job.attempt(), random);
    return retryAfter != null && retryAfter.compareTo(delay) > 0 ? retryAfter : delay;
  }
}
