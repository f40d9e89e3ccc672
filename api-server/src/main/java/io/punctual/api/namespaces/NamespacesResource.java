package io.punctual.api.namespaces;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Principal;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.Authorizer;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import io.punctual.store.namespace.Egress;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.namespace.Quota;
import io.punctual.store.secret.SigningSecrets;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * {@code /api/v1/namespaces}: create, list, read, change the quota or the weight of, deactivate and
 * reactivate namespaces. Changes reach this server's {@link NamespaceCache} at once and the other
 * API servers' within {@code api.namespaceRefresh}. Listing and reading show only the namespaces
 * the caller's key may act in; every change needs an admin key.
 */
@Path("/api/v1/namespaces")
@Produces(MediaType.APPLICATION_JSON)
public final class NamespacesResource {
  /** Up to how many PENDING jobs {@code GET /namespaces/{name}} counts (its cost is bounded). */
  static final long PENDING_COUNT_CAP = 100_000;

  private final Namespaces store;
  private final NamespaceCache cache;
  private final SigningSecrets secrets;
  private final ApiSettings settings;

  public NamespacesResource(
      Namespaces store, NamespaceCache cache, SigningSecrets secrets, ApiSettings settings) {
    this.store = store;
    this.cache = cache;
    this.secrets = secrets;
    this.settings = settings;
  }

  /**
   * 201 with the new namespace and its first signing secret's value, shown this once; 409 {@code
   * namespace-exists} naming {@code name}; 403 naming {@code name} for a name the admin's key may
   * not act in.
   */
  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.ADMIN)
  public Response create(@Context ContainerRequestContext request, JsonNode body) {
    NamespaceRequestParser.Create create = NamespaceRequestParser.parseCreate(body);
    if (!RequestContext.of(request).principal().mayActIn(create.name())) {
      throw new ProblemException(
          Problem.of(
                  403,
                  "forbidden",
                  "Forbidden",
                  "This key may not act in namespace " + create.name() + ".")
              .withField("name"));
    }
    Namespace created =
        store
            .create(create.name(), create.quota(), create.weight())
            .orElseThrow(
                () ->
                    Problems.conflict(
                        "namespace-exists",
                        "Namespace exists",
                        "A namespace named " + create.name() + " exists already.",
                        "name"));
    cache.putCounted(created);
    CreatedSigningSecret secret =
        secrets.ensure(created.name()).map(CreatedSigningSecret::of).orElse(null);
    return Response.created(URI.create("/api/v1/namespaces/" + created.name()))
        .header("Cache-Control", "no-store")
        .entity(NamespaceRepresentation.of(created, null).withSigningSecret(secret))
        .build();
  }

  /** The namespaces the caller may act in, by name; {@code cursor} is the last name of a page. */
  @GET
  @Timed
  @Requires(Permission.READ)
  public NamespacePage list(
      @Context ContainerRequestContext request,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    Principal principal = RequestContext.of(request).principal();
    int pageSize = QueryParams.limit(limit, settings);
    String after = null;
    if (cursor != null && !cursor.isBlank()) {
      after = cursor.trim();
      if (!Authorizer.isValidNamespace(after)) {
        throw Problems.badParameter("cursor", "is not a cursor this API returned");
      }
    }
    List<String> only =
        principal.namespaces().contains(Principal.ALL_NAMESPACES) ? null : principal.namespaces();
    List<Namespace> page = store.list(after, pageSize + 1, only);
    String next = null;
    if (page.size() > pageSize) {
      page = page.subList(0, pageSize);
      next = page.get(pageSize - 1).name();
    }
    return new NamespacePage(
        page.stream().map(ns -> NamespaceRepresentation.of(ns, null)).toList(), next);
  }

  /** The namespace with its usage (PENDING jobs, counted up to {@value #PENDING_COUNT_CAP}). */
  @GET
  @Path("{name}")
  @Timed
  @Requires(Permission.READ)
  public NamespaceRepresentation get(
      @Context ContainerRequestContext request, @PathParam("name") String name) {
    Namespace ns =
        NamespaceLookup.visible(request, name)
            .flatMap(store::find)
            .orElseThrow(() -> NamespaceLookup.noSuch(name));
    long pending = store.countPending(ns.name(), PENDING_COUNT_CAP);
    return NamespaceRepresentation.of(
        ns, new NamespaceRepresentation.Usage(pending, PENDING_COUNT_CAP));
  }

  /** Replaces the quota as a whole (a limit left out is no limit). */
  @PUT
  @Path("{name}/quota")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.ADMIN)
  public NamespaceRepresentation setQuota(
      @Context ContainerRequestContext request, @PathParam("name") String name, JsonNode body) {
    String found =
        NamespaceLookup.visible(request, name).orElseThrow(() -> NamespaceLookup.noSuch(name));
    Quota quota = NamespaceRequestParser.parseQuota(body);
    Namespace ns = store.setQuota(found, quota).orElseThrow(() -> NamespaceLookup.noSuch(name));
    cache.putCounted(ns);
    return NamespaceRepresentation.of(ns, null);
  }

  /**
   * Sets the weight: the namespace's share of the workers' free slots while other namespaces have
   * due jobs too; workers read it within {@code worker.namespaceRefresh}.
   */
  @PUT
  @Path("{name}/weight")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.ADMIN)
  public NamespaceRepresentation setWeight(
      @Context ContainerRequestContext request, @PathParam("name") String name, JsonNode body) {
    String found =
        NamespaceLookup.visible(request, name).orElseThrow(() -> NamespaceLookup.noSuch(name));
    int weight = NamespaceRequestParser.parseWeight(body);
    return changed(store.setWeight(found, weight), name);
  }

  /**
   * Replaces what the namespace's {@code http} callbacks may reach besides the public internet
   * (within the deployment's {@code worker.http.allow}) and whether their answers are kept as
   * results; workers apply it within 5 s.
   */
  @PUT
  @Path("{name}/egress")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.ADMIN)
  public NamespaceRepresentation setEgress(
      @Context ContainerRequestContext request, @PathParam("name") String name, JsonNode body) {
    String found =
        NamespaceLookup.visible(request, name).orElseThrow(() -> NamespaceLookup.noSuch(name));
    Egress egress = NamespaceRequestParser.parseEgress(body, settings.callbackPolicy);
    return changed(store.setEgress(found, egress), name);
  }

  /** Refuses submits from now on (409) and stops workers claiming its jobs; idempotent. */
  @POST
  @Path("{name}/deactivate")
  @Timed
  @Requires(Permission.ADMIN)
  public NamespaceRepresentation deactivate(
      @Context ContainerRequestContext request, @PathParam("name") String name) {
    String found =
        NamespaceLookup.visible(request, name).orElseThrow(() -> NamespaceLookup.noSuch(name));
    return changed(store.setActive(found, false), name);
  }

  /** Takes submits again; workers claim its jobs again; idempotent. */
  @POST
  @Path("{name}/reactivate")
  @Timed
  @Requires(Permission.ADMIN)
  public NamespaceRepresentation reactivate(
      @Context ContainerRequestContext request, @PathParam("name") String name) {
    String found =
        NamespaceLookup.visible(request, name).orElseThrow(() -> NamespaceLookup.noSuch(name));
    return changed(store.setActive(found, true), name);
  }

  private NamespaceRepresentation changed(Optional<Namespace> changed, String name) {
    Namespace ns = changed.orElseThrow(() -> NamespaceLookup.noSuch(name));
    cache.put(ns);
    return NamespaceRepresentation.of(ns, null);
  }
}
