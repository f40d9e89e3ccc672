package io.punctual.api.problem;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Locale;

/**
 * JAX-RS's own errors (unknown route 404, wrong method 405, unsupported media type 415...) as
 * problems, keeping headers such as {@code Allow}.
 */
public final class WebApplicationExceptionMapper
    implements ExceptionMapper<WebApplicationException> {
  @Context private UriInfo uriInfo;

  @Override
  public Response toResponse(WebApplicationException exception) {
    Response original = exception.getResponse();
    int status = original.getStatus();
    String reason = original.getStatusInfo().getReasonPhrase();
    if (reason == null || reason.isBlank()) {
      reason = "HTTP " + status;
    }
    String kind = reason.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    Problem problem = Problem.of(status, kind, reason, detailOf(exception, status));
    for (String header : new String[] {HttpHeaders.ALLOW, HttpHeaders.RETRY_AFTER}) {
      String value = original.getHeaderString(header);
      if (value != null) {
        problem = problem.withHeader(header, value);
      }
    }
    return ProblemResponses.of(problem, uriInfo);
  }

  private static String detailOf(WebApplicationException exception, int status) {
    if (status == 404) {
      return "No resource at this path.";
    }
    if (status == 405) {
      return "This resource does not support the request method.";
    }
    if (status >= 500) {
      return null;
    }
    return exception.getMessage();
  }
}
