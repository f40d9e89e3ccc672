package io.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every route of the API against every role. The table below is the one in docs/api.md ("Who may
 * call what"): the least role each route needs. The test finds the routes in the running
 * application, so a route added without a row here fails it, and sends each one with a key of each
 * role: a role below the route's is refused with 403 problem+json, a role at or above it is not
 * refused (whatever else the placeholder request gets: 404, 422...).
 */
class RouteRoleMatrixIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  /** Route ("METHOD /path/template") to the least role it needs. */
  static final Map<String, Role> LEAST_ROLE = new TreeMap<>();

  static {
    LEAST_ROLE.put("POST /api/v1/jobs", Role.SUBMITTER);
    LEAST_ROLE.put("POST /api/v1/jobs/batch", Role.SUBMITTER);
    LEAST_ROLE.put("GET /api/v1/jobs", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/jobs/{id}", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/jobs/{id}/executions", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/jobs/{id}/logs", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/jobs/{id}/children", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/jobs/{id}/cancel", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/jobs/{id}/retry", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/jobs/{id}/diagnosis", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/jobs/bulk", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/jobs/bulk/{id}", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/stats", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/stats/series", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/workflows", Role.SUBMITTER);
    LEAST_ROLE.put("GET /api/v1/workflows/{id}", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/workflows/{id}/cancel", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/schedules", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/schedules", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/schedules/{id}", Role.VIEWER);
    LEAST_ROLE.put("PUT /api/v1/schedules/{id}", Role.OPERATOR);
    LEAST_ROLE.put("DELETE /api/v1/schedules/{id}", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/schedules/{id}/pause", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/schedules/{id}/resume", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/schedules/{id}/trigger", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/schedules/{id}/preview", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/schedules/{id}/jobs", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/workers", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/workers", Role.WORKER);
    LEAST_ROLE.put("DELETE /api/v1/workers/{id}", Role.WORKER);
    LEAST_ROLE.put("POST /api/v1/workers/{id}/claim", Role.WORKER);
    LEAST_ROLE.put("POST /api/v1/workers/{id}/heartbeat", Role.WORKER);
    LEAST_ROLE.put("POST /api/v1/workers/{id}/complete", Role.WORKER);
    LEAST_ROLE.put("GET /api/v1/me", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/queues/depth", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/namespaces", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/namespaces", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/namespaces/{name}", Role.VIEWER);
    LEAST_ROLE.put("PUT /api/v1/namespaces/{name}/quota", Role.ADMIN);
    LEAST_ROLE.put("PUT /api/v1/namespaces/{name}/weight", Role.ADMIN);
    LEAST_ROLE.put("PUT /api/v1/namespaces/{name}/egress", Role.ADMIN);
    LEAST_ROLE.put("POST /api/v1/namespaces/{name}/deactivate", Role.ADMIN);
    LEAST_ROLE.put("POST /api/v1/namespaces/{name}/reactivate", Role.ADMIN);
    LEAST_ROLE.put("POST /api/v1/namespaces/{name}/signing-secrets", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/namespaces/{name}/signing-secrets", Role.ADMIN);
    LEAST_ROLE.put("DELETE /api/v1/namespaces/{name}/signing-secrets/{id}", Role.ADMIN);
    LEAST_ROLE.put("POST /api/v1/keys", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/keys", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/keys/{id}", Role.ADMIN);
    LEAST_ROLE.put("DELETE /api/v1/keys/{id}", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/audit", Role.ADMIN);
    LEAST_ROLE.put("GET /api/v1/openapi.json", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/alert-rules", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/alert-rules", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/alert-rules/{id}", Role.VIEWER);
    LEAST_ROLE.put("PUT /api/v1/alert-rules/{id}", Role.OPERATOR);
    LEAST_ROLE.put("DELETE /api/v1/alert-rules/{id}", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/alert-rules/{id}/deliveries", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/limits", Role.VIEWER);
    LEAST_ROLE.put("GET /api/v1/limits/{name}", Role.VIEWER);
    LEAST_ROLE.put("PUT /api/v1/limits/{name}", Role.OPERATOR);
    LEAST_ROLE.put("DELETE /api/v1/limits/{name}", Role.OPERATOR);
    LEAST_ROLE.put("GET /api/v1/queues", Role.VIEWER);
    LEAST_ROLE.put("POST /api/v1/queues/{type}/pause", Role.OPERATOR);
    LEAST_ROLE.put("POST /api/v1/queues/{type}/resume", Role.OPERATOR);
  }

  static final Map<Role, String> KEYS = new EnumMap<>(Role.class);

  @BeforeAll
  static void oneKeyPerRole() {
    for (Role role : Role.values()) {
      String namespaces = role == Role.ADMIN ? "[\"*\"]" : "[\"default\"]";
      KEYS.put(
          role,
          KeysIT.createKey(FIXTURE, "matrix " + role.wireName(), role.wireName(), namespaces));
    }
  }

  @Test
  void everyRouteOfTheApplicationIsInTheTable() {
    TreeSet<String> found = new TreeSet<>(routes());
    found.removeIf(route -> route.contains("/test/")); // the fixture's failing resource
    assertThat(found).containsExactlyInAnyOrderElementsOf(LEAST_ROLE.keySet());
  }

  @Test
  void everyRouteRefusesTheRolesBelowItsOwnAndOnlyThose() {
    List<String> wrong = new ArrayList<>();
    int sent = 0;
    for (Map.Entry<String, Role> route : LEAST_ROLE.entrySet()) {
      for (Role role : Role.values()) {
        Reply reply = send(route.getKey(), KEYS.get(role));
        sent++;
        boolean allowed = role.includes(route.getValue());
        boolean refused = reply.status() == 403;
        if (allowed == refused || reply.status() == 401 || reply.status() >= 500) {
          wrong.add(route.getKey() + " as " + role.wireName() + ": " + reply.status());
        }
        if (refused && !reply.contentType().startsWith("application/problem+json")) {
          wrong.add(route.getKey() + " as " + role.wireName() + ": 403 not problem+json");
        }
      }
    }
    assertThat(sent).isEqualTo(LEAST_ROLE.size() * Role.values().length);
    assertThat(wrong).isEmpty();
  }

  @Test
  void withoutAKeyEveryRouteIs401() {
    for (String route : LEAST_ROLE.keySet()) {
      assertThat(send(route, null).status()).as(route).isEqualTo(401);
    }
  }

  /** The routes Jersey serves, as "METHOD /path/template". */
  static List<String> routes() {
    List<String> routes = new ArrayList<>();
    org.glassfish.jersey.server.ResourceConfig config =
        APP.getEnvironment().jersey().getResourceConfig();
    java.util.Set<Class<?>> types = new java.util.LinkedHashSet<>(config.getClasses());
    config.getSingletons().forEach(o -> types.add(o.getClass()));
    config.getInstances().forEach(o -> types.add(o.getClass()));
    for (Class<?> type : types) {
      if (type.isAnnotationPresent(jakarta.ws.rs.Path.class)) {
        Resource resource = Resource.from(type);
        collect(resource, "", routes);
      }
    }
    return routes;
  }

  private static void collect(Resource resource, String parent, List<String> routes) {
    String path = join(parent, resource.getPath());
    for (ResourceMethod method : resource.getResourceMethods()) {
      routes.add(method.getHttpMethod() + " " + path);
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

  private static Reply send(String route, String key) {
    String method = route.substring(0, route.indexOf(' '));
    String path =
        route
            .substring(route.indexOf(' ') + 1)
            .replace("{id}", "019a0000-0000-7000-8000-000000000000")
            .replace("{name}", "matrix-no-such-namespace")
            .replace("{type}", "matrix-type");
    HttpRequest.Builder request = FIXTURE.http().key(key).request(path);
    HttpRequest.BodyPublisher body =
        method.equals("GET") || method.equals("DELETE")
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString("{}");
    request.header("Content-Type", "application/json").method(method, body);
    return FIXTURE.http().send(request);
  }
}
