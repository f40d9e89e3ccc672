package io.punctual.api.workers;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.api.jobs.Items;
import io.punctual.store.registry.WorkerRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/v1/workers}: the workers serving the request's namespace, whether each is alive,
 * its last heartbeat, and the attempts of that namespace it runs now. A worker's {@code namespaces}
 * shows only those the calling key may see: a key of one namespace does not learn the names of the
 * others a shared worker serves (a key of every namespace sees them all).
 */
@Path("/api/v1/workers")
@Produces(MediaType.APPLICATION_JSON)
public final class WorkersResource {
  private final WorkerRegistry registry;
  private final ApiSettings settings;

  public WorkersResource(WorkerRegistry registry, ApiSettings settings) {
    this.registry = registry;
    this.settings = settings;
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public Items<WorkerRepresentation> list(
      @Context ContainerRequestContext request, @QueryParam("limit") String limit) {
    RequestContext context = RequestContext.of(request);
    Principal principal = context.principal();
    return new Items<>(
        registry.list(context.namespace(), QueryParams.limit(limit, settings)).stream()
            .map(w -> WorkerRepresentation.of(w, principal::mayActIn))
            .filter(w -> !w.namespaces().isEmpty())
            .toList());
  }
}
