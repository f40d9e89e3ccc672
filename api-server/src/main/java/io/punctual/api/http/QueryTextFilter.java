package io.punctual.api.http;

import io.punctual.api.problem.Problems;
import io.punctual.requests.FieldError;
import io.punctual.requests.StorableText;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every query parameter of every route, its name and each of its values, is text a request may
 * carry ({@link StorableText}: no NUL, no lone surrogate), or the request is a 422 problem naming
 * each such parameter, before any resource reads it (nor trims a trailing NUL away).
 */
@Priority(Priorities.USER)
public final class QueryTextFilter implements ContainerRequestFilter {
  @Override
  public void filter(ContainerRequestContext request) {
    List<FieldError> errors = new ArrayList<>();
    for (Map.Entry<String, List<String>> parameter :
        request.getUriInfo().getQueryParameters(true).entrySet()) {
      String name = parameter.getKey();
      Optional<String> problem = StorableText.problem(name).map(p -> p + " in its name");
      for (String value : parameter.getValue()) {
        if (problem.isEmpty() && value != null) {
          problem = StorableText.problem(value);
        }
      }
      problem.ifPresent(p -> errors.add(new FieldError(StorableText.printable(name), p)));
    }
    if (!errors.isEmpty()) {
      throw Problems.invalid(errors);
    }
  }
}
