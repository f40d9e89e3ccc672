package io.punctual.api.limits;

import static io.punctual.api.problem.ResourceRefusals.notFound;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.problem.Problems;
import io.punctual.store.limit.Limit;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.limit.TypeLimitedException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * {@code /api/v1/limits}: the limits of the request's namespace (how many attempts of a type run at
 * once and how often they start, per key). A change takes effect at the next claim of every worker.
 */
@Path("/api/v1/limits")
@Produces(MediaType.APPLICATION_JSON)
public final class LimitsResource {
  private final LimitStore store;

  public LimitsResource(LimitStore store) {
    this.store = store;
  }

  /** The list of a namespace's limits (at most one per type, so a short one), by name. */
  public record LimitList(List<LimitRepresentation> items) {}

  @GET
  @Timed
  @Requires(Permission.READ)
  public LimitList list(@Context ContainerRequestContext request) {
    String namespace = RequestContext.of(request).namespace();
    return new LimitList(store.list(namespace).stream().map(LimitRepresentation::of).toList());
  }

  @GET
  @Path("{name}")
  @Timed
  @Requires(Permission.READ)
  public LimitRepresentation get(
      @Context ContainerRequestContext request, @PathParam("name") String name) {
    String namespace = RequestContext.of(request).namespace();
    if (!LimitRequestParser.isValidName(name)) {
      throw notFound("limit", name);
    }
    return store
        .find(namespace, name)
        .map(LimitRepresentation::of)
        .orElseThrow(() -> notFound("limit", name));
  }

  /**
   * Creates or replaces the limit {@code name}: 201 when new, 200 when replaced; 409 {@code
   * type-limited} naming {@code type} when another limit of the namespace has the type.
   */
  @PUT
  @Path("{name}")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public Response put(
      @Context ContainerRequestContext request, @PathParam("name") String name, JsonNode body) {
    String namespace = RequestContext.of(request).namespace();
    Limit parsed = LimitRequestParser.parse(namespace, name, body, "", false);
    boolean existed = store.find(namespace, name).isPresent();
    Limit stored;
    try {
      stored = store.put(parsed);
    } catch (TypeLimitedException e) {
      throw Problems.conflict(
          "type-limited",
          "Type limited already",
          "Type " + parsed.type() + " has a limit already: " + e.other() + ".",
          "type");
    }
    return Response.status(existed ? 200 : 201).entity(LimitRepresentation.of(stored)).build();
  }

  /** Deletes the limit (204); slots its running attempts hold are given back as they end. */
  @DELETE
  @Path("{name}")
  @Timed
  @Requires(Permission.OPERATE)
  public Response delete(@Context ContainerRequestContext request, @PathParam("name") String name) {
    String namespace = RequestContext.of(request).namespace();
    if (!LimitRequestParser.isValidName(name) || !store.delete(namespace, name)) {
      throw notFound("limit", name);
    }
    return Response.noContent().build();
  }
}
