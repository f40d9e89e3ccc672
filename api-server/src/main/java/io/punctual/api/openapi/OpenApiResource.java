package io.punctual.api.openapi;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /api/v1/openapi.json}: the OpenAPI 3.1 document of this API, a resource kept by hand
 * beside this class ({@value #RESOURCE}) and checked against the running routes, their parameters
 * and every request and representation field by {@code OpenApiDocumentIT}. Any valid key may read
 * it (viewer): it describes the API and holds no secret, no configuration value and no host name.
 */
@Path("/api/v1/openapi.json")
public final class OpenApiResource {
  /** Where the document lives on the class path. */
  public static final String RESOURCE = "/io/punctual/api/openapi/openapi.json";

  private final byte[] document;

  public OpenApiResource() {
    this.document = load();
  }

  @GET
  @Timed
  @Produces(MediaType.APPLICATION_JSON)
  @Requires(Permission.READ)
  public byte[] get() {
    return document.clone();
  }

  /** The document's bytes; a build without it is broken, so its absence stops the start. */
  static byte[] load() {
    try (InputStream in = OpenApiResource.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The OpenAPI document " + RESOURCE + " is missing");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
