package io.punctual.api.problem;

import io.dropwizard.jersey.optional.EmptyOptionalException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/** A resource returned an empty Optional: 404 problem instead of Dropwizard's default body. */
public final class EmptyOptionalExceptionMapper implements ExceptionMapper<EmptyOptionalException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(EmptyOptionalException exception) {
    return ProblemResponses.of(Problems.notFound("Nothing found at this path.").problem(), uriInfo);
  }
}
