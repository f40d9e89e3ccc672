package io.punctual.api.http;

import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.Locale;
import java.util.Set;

/**
 * A request body in a content coding the server does not decode ({@code br}, {@code deflate}, a
 * made-up one) is a 415 problem naming {@code Content-Encoding} (RFC 9110, section 8.4.1), instead
 * of its encoded bytes being read as if they were JSON. Jetty's GzipHandler decodes {@code gzip},
 * so it and {@code identity} are the codings taken. It inflates lazily, one buffer at a time as the
 * body is read (its {@code GzipRequest} transforms each chunk read), never ahead: a body nobody
 * reads (a request refused for its key) is never inflated, and {@link RequestSizeLimitFilter} stops
 * the reading one buffer past {@code api.maxRequestBytes} of inflated bytes.
 */
@PreMatching
@Priority(Priorities.HEADER_DECORATOR - 1)
public final class ContentEncodingFilter implements ContainerRequestFilter {
  public static final String HEADER = "Content-Encoding";

  private static final Set<String> DECODED = Set.of("identity", "gzip", "x-gzip");

  @Override
  public void filter(ContainerRequestContext request) {
    for (String value : request.getHeaders().getOrDefault(HEADER, java.util.List.of())) {
      if (!isDecoded(value)) {
        throw new ProblemException(
            Problem.of(
                    415,
                    "unsupported-media-type",
                    "Unsupported Media Type",
                    "Request bodies may be sent as they are or gzip-compressed, in no other"
                        + " content coding.")
                .withField(HEADER));
      }
    }
  }

  /** Whether every coding a {@code Content-Encoding} value lists is one the server decodes. */
  static boolean isDecoded(String value) {
    for (String coding : value.split(",", -1)) {
      if (!DECODED.contains(coding.trim().toLowerCase(Locale.ROOT))) {
        return false;
      }
    }
    return true;
  }
}
