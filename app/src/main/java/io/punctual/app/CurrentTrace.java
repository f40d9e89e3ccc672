package io.punctual.app;

import io.opentelemetry.api.trace.Span;
import io.punctual.worker.trace.AttemptTracing;

/**
 * The W3C {@code traceparent} of the OpenTelemetry span current on this thread: that of the request
 * the application is serving when it is traced (the OpenTelemetry Java agent, Spring Boot's
 * Micrometer tracing bridge, or spans of its own), or null when there is none. What {@link
 * PunctualJobs} and {@code PunctualOutbox} store with a job submitted without a traceparent of its
 * own, so a traced worker's span of each attempt is its child.
 */
public final class CurrentTrace {
  private CurrentTrace() {}

  /** {@code 00-<trace id>-<span id>-<flags>} of the current span, or null without a valid one. */
  public static String traceparent() {
    return AttemptTracing.traceparent(Span.current().getSpanContext());
  }
}
