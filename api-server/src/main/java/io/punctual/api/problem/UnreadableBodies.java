package io.punctual.api.problem;

import java.util.Optional;
import java.util.zip.ZipException;
import org.eclipse.jetty.http.HttpException;

/**
 * A request body that could not be read as sent: a malformed chunked encoding (Jetty's parser gives
 * up mid-body) or bytes that are not gzip under {@code Content-Encoding: gzip}. Both are the
 * client's fault, a 400, and surface inside whatever was reading the body.
 */
final class UnreadableBodies {
  private UnreadableBodies() {}

  static Optional<Problem> problemOf(Throwable exception) {
    for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
      if (cause instanceof ZipException) {
        return Optional.of(problem("The request body is not valid under its Content-Encoding."));
      }
      if (cause instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500) {
        return Optional.of(problem("The request body is not a well-formed HTTP message body."));
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return Optional.empty();
  }

  private static Problem problem(String detail) {
    return Problem.of(400, "unreadable-body", "Unreadable request body", detail);
  }
}
