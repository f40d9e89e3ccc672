package io.punctual.api.context;

import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;

/**
 * Gives every resource method the check of the {@link Permission} its {@link Requires} names
 * (method first, then class). A method without one needs {@link Permission#ADMIN}: a route someone
 * forgot to mark is closed, not open.
 */
public final class PermissionFeature implements DynamicFeature {
  @Override
  public void configure(ResourceInfo resource, FeatureContext context) {
    context.register(new PermissionFilter(needed(resource.getResourceMethod())));
  }

  /** The permission {@code method} needs. */
  public static Permission needed(Method method) {
    Requires requires = method.getAnnotation(Requires.class);
    if (requires == null) {
      requires = method.getDeclaringClass().getAnnotation(Requires.class);
    }
    return requires == null ? Permission.ADMIN : requires.value();
  }

  @Priority(Priorities.AUTHORIZATION)
  private static final class PermissionFilter implements ContainerRequestFilter {
    private final Permission needed;

    PermissionFilter(Permission needed) {
      this.needed = needed;
    }

    @Override
    public void filter(ContainerRequestContext request) {
      Authorizer.require(RequestContext.of(request), needed);
    }
  }
}
