package io.punctual.api.support;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;

/** The routes a running application's Jersey serves, with the Java method behind each. */
public final class JerseyRoutes {
  private JerseyRoutes() {}

  /** One route: {@code "METHOD /path/template"} and its resource method. */
  public record Route(String method, String path, ResourceMethod resourceMethod) {
    public String key() {
      return method + " " + path;
    }
  }

  /** Every route of {@code app}'s resources (the test fixture's {@code /test/} ones left out). */
  public static List<Route> of(DropwizardAppExtension<?> app) {
    List<Route> routes = new ArrayList<>();
    ResourceConfig config = app.getEnvironment().jersey().getResourceConfig();
    Set<Class<?>> types = new LinkedHashSet<>(config.getClasses());
    config.getSingletons().forEach(o -> types.add(o.getClass()));
    config.getInstances().forEach(o -> types.add(o.getClass()));
    for (Class<?> type : types) {
      if (type.isAnnotationPresent(jakarta.ws.rs.Path.class)) {
        collect(Resource.from(type), "", routes);
      }
    }
    routes.removeIf(route -> route.path().contains("/test/"));
    return routes;
  }

  private static void collect(Resource resource, String parent, List<Route> routes) {
    String path = join(parent, resource.getPath());
    for (ResourceMethod method : resource.getResourceMethods()) {
      routes.add(new Route(method.getHttpMethod(), path, method));
    }
    for (Resource child : resource.getChildResources()) {
      collect(child, path, routes);
    }
  }

  private static String join(String parent, String path) {
    String p = path == null ? "" : path;
    if (!p.isEmpty() && !p.startsWith("/")) {
      p = "/" + p;
    }
    String joined = parent + p;
    return joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
  }
}
