package io.punctual.api.keys;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.ApiKey;
import io.punctual.api.auth.ApiKeys;
import io.punctual.api.auth.KeyAuthenticator;
import io.punctual.api.auth.KeySecrets;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code /api/v1/keys}: create (the secret is answered once), list (without secrets), read, revoke.
 * Admins only.
 */
@Path("/api/v1/keys")
@Produces(MediaType.APPLICATION_JSON)
public final class KeysResource {
  private final ApiKeys keys;
  private final KeyAuthenticator authenticator;
  private final ApiSettings settings;
  private final Clock clock;

  /** {@code authenticator}: null while authentication is off. */
  public KeysResource(
      ApiKeys keys, KeyAuthenticator authenticator, ApiSettings settings, Clock clock) {
    this.keys = keys;
    this.authenticator = authenticator;
    this.settings = settings;
    this.clock = clock;
  }

  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.ADMIN)
  public Response create(JsonNode body) {
    ApiKeys.NewKey request = KeyRequestParser.parse(body, clock.instant());
    String secret = KeySecrets.generate();
    ApiKey key =
        keys.create(request, secret)
            .orElseThrow(() -> new IllegalStateException("a fresh random secret collided"));
    if (authenticator != null) {
      authenticator.created(secret);
    }
    return Response.created(URI.create("/api/v1/keys/" + key.id()))
        .entity(KeyRepresentation.withSecret(key, secret))
        .build();
  }

  @GET
  @Timed
  @Requires(Permission.ADMIN)
  public KeyPage list(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
    int size = QueryParams.limit(limit, settings);
    ApiKey after = null;
    if (cursor != null) {
      after =
          id(cursor)
              .flatMap(keys::find)
              .orElseThrow(
                  () -> Problems.badParameter("cursor", "is not a cursor this API gave out"));
    }
    List<ApiKey> page = keys.list(after, size + 1);
    boolean more = page.size() > size;
    List<ApiKey> items = more ? page.subList(0, size) : page;
    return new KeyPage(
        items.stream().map(KeyRepresentation::of).toList(),
        more ? items.get(items.size() - 1).id().toString() : null);
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.ADMIN)
  public KeyRepresentation get(@PathParam("id") String id) {
    return id(id).flatMap(keys::find).map(KeyRepresentation::of).orElseThrow(() -> noSuchKey(id));
  }

  @DELETE
  @Path("{id}")
  @Timed
  @Requires(Permission.ADMIN)
  public Response revoke(@PathParam("id") String id) {
    UUID keyId = id(id).orElseThrow(() -> noSuchKey(id));
    if (!keys.revoke(keyId)) {
      throw noSuchKey(id);
    }
    if (authenticator != null) {
      authenticator.forget(keyId);
    }
    return Response.noContent().build();
  }

  /** A key id: any UUID in its canonical 36-character form. */
  private static Optional<UUID> id(String text) {
    if (text == null || text.length() != 36) {
      return Optional.empty();
    }
    try {
      return Optional.of(UUID.fromString(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static RuntimeException noSuchKey(String id) {
    return Problems.notFound("No key " + id + " (or it was revoked).");
  }
}
