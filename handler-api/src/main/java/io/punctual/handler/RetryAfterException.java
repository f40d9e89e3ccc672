package io.punctual.handler;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a handler to fail this attempt and ask for the next one no sooner than {@code
 * retryAfter} from now. The job's backoff still applies when it asks for a longer delay; when no
 * attempt remains the job fails.
 */
public class RetryAfterException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  public RetryAfterException(Duration retryAfter, String message) {
    super(message);
    Objects.requireNonNull(retryAfter, "retryAfter");
    this.retryAfter = retryAfter.isNegative() ? Duration.ZERO : retryAfter;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}
