package io.punctual.api.keys;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code GET /api/v1/me}: the key that calls, as the console needs it to show or hide actions (the
 * server refuses them anyway). Any role; no secret, no store read (the key was verified already).
 */
@Path("/api/v1/me")
@Produces(MediaType.APPLICATION_JSON)
public final class MeResource {
  /**
   * The caller's key.
   *
   * @param keyId null while authentication is off
   * @param namespace the namespace the request acted in (its header, or the default)
   */
  public record Me(
      String keyId, String name, String role, List<String> namespaces, String namespace) {}

  @GET
  @Timed
  @Requires(Permission.READ)
  public Me me(@Context ContainerRequestContext request) {
    RequestContext context = RequestContext.of(request);
    Principal principal = context.principal();
    return new Me(
        principal.keyId() == null ? null : principal.keyId().toString(),
        principal.keyName(),
        principal.role().wireName(),
        principal.namespaces(),
        context.namespace());
  }
}
