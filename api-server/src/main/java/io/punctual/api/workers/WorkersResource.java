package io.punctual.api.workers;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
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
 * its last heartbeat, and the attempts of that namespace it runs now.
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
    String namespace = RequestContext.of(request).namespace();
    return new Items<>(
        registry.list(namespace, QueryParams.limit(limit, settings)).stream()
            .map(WorkerRepresentation::of)
            .toList());
  }
}
