package io.punctual.api.problem;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers an unexpected exception: 422 {@code query-too-broad} when the statement timeout cancelled
 * a statement, 503 with {@code Retry-After} when PostgreSQL is unreachable, otherwise a 500 whose
 * body carries only a reference to the log entry (never a stack trace).
 */
public final class ServerErrors {
  private static final Logger LOG = LoggerFactory.getLogger(ServerErrors.class);
  static final int RETRY_AFTER_SECONDS = 5;

  private ServerErrors() {}

  static Response toResponse(Throwable exception, UriInfo uriInfo) {
    return toResponse(exception, path(uriInfo));
  }

  /** The same, for a request served outside Jersey; {@code path} is its raw path. */
  public static Response toResponse(Throwable exception, String path) {
    if (StoreFailures.isStatementTimeout(exception)) {
      LOG.info("statement timeout path={}", path);
      return ProblemResponses.of(Problems.queryTooBroad(null).problem(), path);
    }
    if (StoreFailures.isUnavailable(exception)) {
      LOG.warn("store unavailable path={} error={}", path, String.valueOf(exception));
      return ProblemResponses.of(
          Problems.unavailable("The job store is unreachable; retry later.", RETRY_AFTER_SECONDS),
          path);
    }
    String errorId = Long.toHexString(ThreadLocalRandom.current().nextLong());
    LOG.error("unhandled error errorId={} path={}", errorId, path, exception);
    return ProblemResponses.of(Problems.internal(errorId), path);
  }

  private static String path(UriInfo uriInfo) {
    try {
      return uriInfo.getRequestUri().getRawPath();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
