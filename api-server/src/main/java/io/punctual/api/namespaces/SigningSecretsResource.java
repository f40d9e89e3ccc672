package io.punctual.api.namespaces;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.problem.Problems;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.secret.SigningSecrets;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code /api/v1/namespaces/{name}/signing-secrets}: the secrets that sign the namespace's
 * deliveries (its {@code http} callbacks and alert notices), admin only. A new secret's value is in
 * the answer that made it and nowhere else, ever; the list gives ids and dates. Every secret listed
 * signs (several while a receiver rotates); the last one cannot be deleted. Workers and alerters
 * sign with a change within 5 s.
 */
@Path("/api/v1/namespaces/{name}/signing-secrets")
@Produces(MediaType.APPLICATION_JSON)
public final class SigningSecretsResource {
  private final Namespaces namespaces;
  private final SigningSecrets secrets;

  public SigningSecretsResource(Namespaces namespaces, SigningSecrets secrets) {
    this.namespaces = namespaces;
    this.secrets = secrets;
  }

  /**
   * 201 with the new secret's value, shown once ({@code Cache-Control: no-store}); 409 {@code
   * signing-secrets-full} when the namespace holds {@link SigningSecrets#MAX_PER_NAMESPACE}.
   */
  @POST
  @Timed
  @Requires(Permission.ADMIN)
  public Response create(@Context ContainerRequestContext request, @PathParam("name") String name) {
    String namespace = existing(request, name);
    CreatedSigningSecret created =
        CreatedSigningSecret.of(
            secrets
                .create(namespace)
                .orElseThrow(
                    () ->
                        Problems.conflict(
                            "signing-secrets-full",
                            "Too many signing secrets",
                            "Namespace "
                                + namespace
                                + " holds "
                                + SigningSecrets.MAX_PER_NAMESPACE
                                + " signing secrets, the most it may (each signs every"
                                + " delivery): delete one first.",
                            "name")));
    return Response.created(
            URI.create("/api/v1/namespaces/" + namespace + "/signing-secrets/" + created.id()))
        .header("Cache-Control", "no-store")
        .entity(created)
        .build();
  }

  @GET
  @Timed
  @Requires(Permission.ADMIN)
  public SigningSecretPage list(
      @Context ContainerRequestContext request, @PathParam("name") String name) {
    String namespace = existing(request, name);
    return new SigningSecretPage(
        secrets.list(namespace).stream()
            .map(s -> new SigningSecretRepresentation(s.id(), s.createdAt()))
            .toList());
  }

  /** 204; 404 for no such secret; 409 {@code last-signing-secret} for the namespace's last one. */
  @DELETE
  @Path("{id}")
  @Timed
  @Requires(Permission.ADMIN)
  public Response delete(
      @Context ContainerRequestContext request,
      @PathParam("name") String name,
      @PathParam("id") String id) {
    String namespace = existing(request, name);
    Optional<UUID> secretId = uuid(id);
    SigningSecrets.Deleted deleted =
        secretId.isEmpty()
            ? SigningSecrets.Deleted.NOT_FOUND
            : secrets.delete(namespace, secretId.get());
    return switch (deleted) {
      case DELETED -> Response.noContent().build();
      case NOT_FOUND ->
          throw Problems.notFound("No signing secret " + id + " in " + namespace + ".");
      case LAST ->
          throw Problems.conflict(
              "last-signing-secret",
              "The last signing secret",
              "A namespace keeps at least one signing secret: make its successor first"
                  + " (POST /api/v1/namespaces/"
                  + namespace
                  + "/signing-secrets), then delete this one.",
              "id");
    };
  }

  private String existing(ContainerRequestContext request, String name) {
    return NamespaceLookup.visible(request, name)
        .filter(n -> namespaces.find(n).isPresent())
        .orElseThrow(() -> NamespaceLookup.noSuch(name));
  }

  private static Optional<UUID> uuid(String id) {
    try {
      return Optional.of(UUID.fromString(id));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
