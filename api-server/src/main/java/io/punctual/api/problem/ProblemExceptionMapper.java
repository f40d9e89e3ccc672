package io.punctual.api.problem;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/** Answers a {@link ProblemException} with its problem. */
public final class ProblemExceptionMapper implements ExceptionMapper<ProblemException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(ProblemException exception) {
    return ProblemResponses.of(exception.problem(), uriInfo);
  }
}
