package io.punctual.api.context;

import io.punctual.api.auth.Principal;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Who a request acts for: the namespace it acts in (already checked against the key) and the key
 * that sent it. Resolved once per request by {@link Authorizer}; resources read it with {@link
 * #of}.
 */
public record RequestContext(String namespace, Principal principal) {
  static final String PROPERTY = RequestContext.class.getName();

  public static RequestContext of(ContainerRequestContext request) {
    Object context = request.getProperty(PROPERTY);
    if (!(context instanceof RequestContext resolved)) {
      throw new IllegalStateException("no RequestContext: Authorizer is not registered");
    }
    return resolved;
  }
}
