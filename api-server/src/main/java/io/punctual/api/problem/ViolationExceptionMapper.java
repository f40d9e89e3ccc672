package io.punctual.api.problem;

import io.dropwizard.jersey.validation.JerseyViolationException;
import io.punctual.requests.FieldError;
import jakarta.validation.ConstraintViolation;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.ArrayList;
import java.util.List;

/** Bean-validation failures (should any resource use them) as 422 problems. */
public final class ViolationExceptionMapper implements ExceptionMapper<JerseyViolationException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(JerseyViolationException exception) {
    List<FieldError> errors = new ArrayList<>();
    for (ConstraintViolation<?> violation : exception.getConstraintViolations()) {
      errors.add(new FieldError(violation.getPropertyPath().toString(), violation.getMessage()));
    }
    if (errors.isEmpty()) {
      errors.add(new FieldError(null, exception.getMessage()));
    }
    return ProblemResponses.of(Problems.invalid(errors).problem(), uriInfo);
  }
}
