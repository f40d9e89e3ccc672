package io.punctual.api.audit;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.store.AuditStore;
import io.punctual.store.AuditStore.Page;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.function.Function;

/**
 * {@code GET /api/v1/audit}: the audit log, newest first, for admin keys. A key limited to some
 * namespaces reads the entries of those only (a {@code namespace} outside them is a 400).
 */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
public final class AuditResource {
  private final AuditStore store;
  private final ApiSettings settings;
  private final Function<ContainerRequestContext, Actor> callers;

  /** {@code callers}: as for {@link AuditFilter}. */
  public AuditResource(
      AuditStore store, ApiSettings settings, Function<ContainerRequestContext, Actor> callers) {
    this.store = store;
    this.settings = settings;
    this.callers = callers;
  }

  @GET
  @Timed
  @Requires(Permission.ADMIN)
  public AuditPage list(
      @Context ContainerRequestContext request,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("namespace") String namespace,
      @QueryParam("keyId") String keyId,
      @QueryParam("action") String action,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    Page page =
        store.page(
            AuditParams.parse(
                settings,
                readable(callers.apply(request)),
                from,
                to,
                namespace,
                keyId,
                action,
                limit,
                cursor));
    return new AuditPage(
        page.items().stream().map(AuditEntryRepresentation::of).toList(),
        AuditCursor.encode(page.next()));
  }

  /** The namespaces the caller may read the entries of, null for all. */
  private static List<String> readable(Actor caller) {
    if (caller == null) {
      return List.of();
    }
    return caller.keyNamespaces().contains(Principal.ALL_NAMESPACES)
        ? null
        : caller.keyNamespaces();
  }
}
