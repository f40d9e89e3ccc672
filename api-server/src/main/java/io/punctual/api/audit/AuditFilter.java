package io.punctual.api.audit;

import io.punctual.api.problem.Problem;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;

/**
 * Audits every mutating request Jersey answers on a route of {@code /api/v1} (POST, PUT, PATCH,
 * DELETE), refusals included, once its answer is known. Nothing is specific to a route, so routes
 * added later are audited as they come:
 *
 * <ul>
 *   <li>{@code action}: the method and the route template matched, e.g. {@code POST
 *       /api/v1/jobs/{id}/cancel};
 *   <li>{@code target}: the value of the route's last parameter ({@code {id}}); on a route without
 *       one (a create), the last segment of the answer's {@code Location}, else the {@code id} of
 *       the record answered (a repeated create answered 200), else, for a list of such records
 *       ({@code {"items": [...]}}, a batch), the first id and how many more; none for a refused
 *       create;
 *   <li>the sender: what {@link #identify} was told (the authorizer, refusing), else the request's
 *       caller as resolved for it ({@code callers}), else unknown.
 * </ul>
 *
 * A refused authentication (401, {@link #refusedAuthentication}), whatever the method, is not
 * written as an entry of its own but counted by {@link AuditLog#refused} per source address (the
 * client address as the server sees it: behind a proxy, only with Dropwizard's {@code
 * useForwardedHeaders}), minute, reason and route, so that a flood of bad keys costs a few rows.
 *
 * <p>A remote worker's claims, heartbeats and completions that succeed are not audited (its
 * registration and deregistration, and every refusal, are). A request matching no route (404, 405)
 * acted on nothing and is not audited; neither is one refused before routing (a malformed request).
 * A body over {@code api.maxRequestBytes} is refused after the key was checked, on its route, and
 * audited as any refusal.
 */
@Priority(Priorities.USER)
public final class AuditFilter implements ContainerResponseFilter {
  static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");

  /**
   * The worker protocol's traffic: a remote worker's claims, heartbeats and completions (several a
   * second per worker, like a Java worker's, which are not audited either); its registration and
   * deregistration are.
   */
  static final Set<String> WORKER_TRAFFIC =
      Set.of(
          "POST /api/v1/workers/{id}/claim",
          "POST /api/v1/workers/{id}/heartbeat",
          "POST /api/v1/workers/{id}/complete");

  static final String PREFIX = "/api/v1/";
  public static final String REQUEST_ID_HEADER = "X-Request-Id";
  private static final String ACTOR = AuditFilter.class.getName() + ".actor";
  private static final String REFUSED = AuditFilter.class.getName() + ".refusedAuthentication";
  private static final Pattern PARAMETER = Pattern.compile("\\{\\s*(\\w[\\w.-]*)");

  private final AuditLog audit;
  private final Function<ContainerRequestContext, Actor> callers;

  /** The request as the servlet container has it (Jersey injects a proxy), for its address. */
  @Context private HttpServletRequest servletRequest;

  /**
   * {@code callers}: the sender of a request as resolved for it (null when none was): given by the
   * wiring, so that this package need not know the one that resolves it (which calls {@link
   * #identify}).
   */
  public AuditFilter(AuditLog audit, Function<ContainerRequestContext, Actor> callers) {
    this.audit = audit;
    this.callers = callers;
  }

  /**
   * What is known of the sender of a request about to be refused (401, 403) before it had a caller:
   * the authorizer calls this, then refuses as usual; the refusal is audited with it. Never pass a
   * key's secret.
   */
  public static void identify(ContainerRequestContext request, Actor actor) {
    request.setProperty(ACTOR, actor);
  }

  /**
   * The authorizer refused the request's key (a 401) for {@code reason} ({@code "unknown key"}):
   * the refusal is counted, not written as an entry of its own. Never pass the key.
   */
  public static void refusedAuthentication(ContainerRequestContext request, String reason) {
    request.setProperty(REFUSED, reason);
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (!(request.getUriInfo() instanceof ExtendedUriInfo info)
        || info.getMatchedResourceMethod() == null) {
      return;
    }
    String route = route(info.getMatchedTemplates());
    if (!route.startsWith(PREFIX)) {
      return;
    }
    int status = response.getStatus();
    if (status == 401 && request.getProperty(REFUSED) instanceof String reason) {
      audit.refused(
          source(),
          reason,
          request.getMethod() + " " + route,
          response.getEntity() instanceof Problem p ? p.type() : null);
      return;
    }
    if (!MUTATING.contains(request.getMethod())
        || (status < 400 && WORKER_TRAFFIC.contains(request.getMethod() + " " + route))) {
      return;
    }
    audit.record(
        actor(request),
        request.getMethod() + " " + route,
        target(response, route, info.getPathParameters()),
        status,
        status >= 400 && response.getEntity() instanceof Problem p ? p.type() : null,
        request.getHeaderString(REQUEST_ID_HEADER));
  }

  /** The client's address, or {@code (unknown)} when the container cannot tell. */
  private String source() {
    try {
      String address = servletRequest == null ? null : servletRequest.getRemoteAddr();
      return address == null ? "(unknown)" : address;
    } catch (RuntimeException outsideARequest) {
      return "(unknown)";
    }
  }

  private Actor actor(ContainerRequestContext request) {
    if (request.getProperty(ACTOR) instanceof Actor identified) {
      return identified;
    }
    return callers.apply(request);
  }

  /** The templates matched, outermost last (as Jersey lists them), as one path. */
  static String route(List<UriTemplate> matched) {
    StringBuilder path = new StringBuilder();
    for (int i = matched.size() - 1; i >= 0; i--) {
      String part = matched.get(i).getTemplate();
      if (part.isEmpty() || part.equals("/")) {
        continue;
      }
      if (path.isEmpty() || path.charAt(path.length() - 1) != '/') {
        if (!part.startsWith("/")) {
          path.append('/');
        }
      } else if (part.startsWith("/")) {
        part = part.substring(1);
      }
      path.append(part);
    }
    return path.toString();
  }

  private static String target(
      ContainerResponseContext response, String route, MultivaluedMap<String, String> parameters) {
    String last = null;
    Matcher m = PARAMETER.matcher(route);
    while (m.find()) {
      last = m.group(1);
    }
    if (last != null && parameters.getFirst(last) != null) {
      return parameters.getFirst(last);
    }
    if (response.getStatus() >= 300) {
      return null;
    }
    URI location = response.getLocation();
    if (location != null && location.getPath() != null) {
      String path = location.getPath();
      return path.substring(path.lastIndexOf('/') + 1);
    }
    return idOf(response.getEntity());
  }

  /** The {@code id} of a record, or the first id and how many more of a record of one list. */
  static String idOf(Object entity) {
    if (!(entity instanceof Record record)) {
      return null;
    }
    RecordComponent[] components = record.getClass().getRecordComponents();
    for (RecordComponent c : components) {
      if (c.getName().equals("id")) {
        Object id = read(c, record);
        return id == null ? null : id.toString();
      }
    }
    if (components.length == 1 && read(components[0], record) instanceof List<?> items) {
      if (items.isEmpty()) {
        return null;
      }
      String first = idOf(items.get(0));
      if (first == null || items.size() == 1) {
        return first;
      }
      return first + " (+" + (items.size() - 1) + " more)";
    }
    return null;
  }

  private static Object read(RecordComponent component, Record record) {
    try {
      return component.getAccessor().invoke(record);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
