package io.punctual.api.workers;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.api.jobs.Items;
import io.punctual.api.remote.RemoteWorkers;
import io.punctual.store.registry.WorkerRegistry;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

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
  private final RemoteWorkers remote;

  public WorkersResource(WorkerRegistry registry, ApiSettings settings, RemoteWorkers remote) {
    this.registry = registry;
    this.settings = settings;
    this.remote = remote;
  }

  /**
   * {@code POST /api/v1/workers}: registers a remote worker (the worker protocol, {@link
   * io.punctual.api.remote.RemoteWorkerResource}) in the request's namespace: 201 with its id and
   * the intervals it must keep; 429 when this API process serves {@code
   * api.remoteWorkers.maxWorkers} already.
   */
  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.WORK)
  public Response register(@Context ContainerRequestContext request, JsonNode body) {
    return Response.status(201)
        .entity(remote.registerFrom(RequestContext.of(request).namespace(), body))
        .build();
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
