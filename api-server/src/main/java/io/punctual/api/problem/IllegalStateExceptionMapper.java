package io.punctual.api.problem;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * {@link IllegalStateException} as a problem. Needed because Dropwizard's default mapper of this
 * type is closer to it than {@link ThrowableMapper} and would answer in its own format.
 */
public final class IllegalStateExceptionMapper implements ExceptionMapper<IllegalStateException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(IllegalStateException exception) {
    return ServerErrors.toResponse(exception, uriInfo);
  }
}
