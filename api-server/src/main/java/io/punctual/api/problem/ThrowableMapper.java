package io.punctual.api.problem;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * Any exception no closer mapper handles: 400 for a body that cannot be read as sent (malformed
 * chunked encoding, not gzip under Content-Encoding: gzip), 422 for a statement the API's timeout
 * cancelled, 503 for a store outage, else 500.
 */
public final class ThrowableMapper implements ExceptionMapper<Throwable> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(Throwable exception) {
    return UnreadableBodies.problemOf(exception)
        .map(problem -> ProblemResponses.of(problem, uriInfo))
        .orElseGet(() -> ServerErrors.toResponse(exception, uriInfo));
  }
}
