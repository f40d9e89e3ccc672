package io.punctual.api.context;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Who a request acts for: today only its namespace. Resolved once per request by {@link
 * Authorizer}; resources read it with {@link #of}.
 */
public record RequestContext(String namespace) {
  static final String PROPERTY = RequestContext.class.getName();

  public static RequestContext of(ContainerRequestContext request) {
    Object context = request.getProperty(PROPERTY);
    if (!(context instanceof RequestContext resolved)) {
      throw new IllegalStateException("no RequestContext: Authorizer is not registered");
    }
    return resolved;
  }
}
