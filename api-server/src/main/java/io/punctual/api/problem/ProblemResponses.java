package io.punctual.api.problem;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/** Builds the HTTP response of a problem. */
public final class ProblemResponses {
  private ProblemResponses() {}

  public static Response of(Problem problem, UriInfo uriInfo) {
    return of(problem, pathOf(uriInfo));
  }

  public static Response of(Problem problem, String path) {
    Problem withInstance = problem.instance() == null ? problem.withInstance(path) : problem;
    Response.ResponseBuilder builder =
        Response.status(withInstance.status()).type(Problem.MEDIA_TYPE).entity(withInstance);
    withInstance.headers().forEach(builder::header);
    return builder.build();
  }

  private static String pathOf(UriInfo uriInfo) {
    try {
      return uriInfo == null ? null : uriInfo.getRequestUri().getRawPath();
    } catch (RuntimeException outsideOfARequest) {
      return null;
    }
  }
}
