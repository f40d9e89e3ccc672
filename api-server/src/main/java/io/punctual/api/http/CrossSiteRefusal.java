package io.punctual.api.http;

import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses a mutating request ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) that a
 * browser says comes from another site ({@code Sec-Fetch-Site: cross-site}): 403 problem+json
 * naming the header, before the key is looked at. The API takes no cookies, so a forged request
 * carries no authority anyway; this closes the door a second time for browsers, whatever a page
 * elsewhere manages to send. Clients that are not browsers send no such header and are unaffected.
 */
@Priority(Priorities.AUTHENTICATION - 100)
public final class CrossSiteRefusal implements ContainerRequestFilter {
  public static final String HEADER = "Sec-Fetch-Site";

  private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");

  @Override
  public void filter(ContainerRequestContext request) {
    if (refuses(request.getMethod(), request.getHeaderString(HEADER))) {
      throw new ProblemException(
          Problem.of(
                  403,
                  "cross-site-request",
                  "Cross-site request",
                  "A browser sent this request from another site; changes are taken from the"
                      + " console's own origin or from clients that are not browsers.")
              .withField(HEADER));
    }
  }

  /**
   * Whether a request with this method and {@code Sec-Fetch-Site} value (null: none) is refused.
   */
  public static boolean refuses(String method, String secFetchSite) {
    return secFetchSite != null
        && MUTATING.contains(method.toUpperCase(Locale.ROOT))
        && secFetchSite.trim().equalsIgnoreCase("cross-site");
  }
}
