package io.punctual.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.handler.FollowUp;
import java.time.Duration;
import java.util.List;

/**
 * How a remote worker ended an attempt: a success with its result and follow-ups, or a failure with
 * its error, whether it may be retried, and the least delay before a retry (null: the job's
 * backoff).
 */
sealed interface RemoteResult {
  /** {@code followUps}: jobs to store with the success, as a Java handler's spawned ones. */
  record Succeeded(JsonNode result, List<FollowUp> followUps) implements RemoteResult {
    public Succeeded {
      followUps = List.copyOf(followUps);
    }
  }

  record Failed(String error, boolean retryable, Duration retryAfter) implements RemoteResult {}
}
