package io.punctual.worker.run;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.model.NewJob;
import java.time.Duration;
import java.util.List;

/** How one attempt ended, before it is turned into a {@link io.punctual.model.Completion}. */
public sealed interface Outcome {
  /** The handler returned normally; {@code spawned}: the follow-up jobs it asked for. */
  record Succeeded(JsonNode result, List<NewJob> spawned) implements Outcome {
    public Succeeded {
      spawned = spawned == null ? List.of() : List.copyOf(spawned);
    }

    public Succeeded(JsonNode result) {
      this(result, List.of());
    }
  }

  /**
   * The handler failed. {@code retryAfter} (may be null) is the least delay the handler asked for.
   */
  record Failed(boolean retryable, Duration retryAfter, String error, String stackTrace)
      implements Outcome {
    public static Failed retryable(String error) {
      return new Failed(true, null, error, null);
    }

    public static Failed permanent(String error) {
      return new Failed(false, null, error, null);
    }
  }

  /** The handler overran its timeout and was interrupted. Retryable. */
  record TimedOut(Duration timeout) implements Outcome {}

  /** The job was cancelled (or taken from this worker) while the handler ran. */
  record Cancelled() implements Outcome {}

  /**
   * The worker is stopping and its shutdown grace ended before the handler did: the attempt is
   * handed back (transition HAND_BACK), not recorded as a failure, and does not use up an attempt.
   * {@code error} says why, for its execution row.
   */
  record HandedBack(String error) implements Outcome {}
}
