package io.punctual.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;

/**
 * How a remote worker ended an attempt: a success with its result, or a failure with its error,
 * whether it may be retried, and the least delay before a retry (null: the job's backoff).
 */
sealed interface RemoteResult {
  record Succeeded(JsonNode result) implements RemoteResult {}

  record Failed(String error, boolean retryable, Duration retryAfter) implements RemoteResult {}
}
