package io.punctual.api.problem;

import io.punctual.requests.RequestRejectedException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/** Answers a request body a parser rejected: 422 naming every invalid field, or 413. */
public final class RequestRejectedExceptionMapper
    implements ExceptionMapper<RequestRejectedException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(RequestRejectedException exception) {
    return ProblemResponses.of(Problems.rejected(exception).problem(), uriInfo);
  }
}
