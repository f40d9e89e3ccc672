package io.punctual.api.bulk;

import static io.punctual.api.problem.ResourceRefusals.notFound;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.jobs.JobListing;
import io.punctual.api.problem.Problems;
import io.punctual.api.problem.StoreFailures;
import io.punctual.store.JobQueries;
import jakarta.ws.rs.Consumes;
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
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * {@code POST /api/v1/jobs/bulk}: retry or cancel every job a filter of {@code GET /api/v1/jobs}
 * matches, in the background ({@code dryRun}: only count them; {@link BulkRunner}: resumed by
 * another API process if this one dies); {@code GET /api/v1/jobs/bulk/{id}}: its progress, from any
 * API instance.
 */
@Path("/api/v1/jobs/bulk")
@Produces(MediaType.APPLICATION_JSON)
public final class BulkResource {
  /** What narrows a filter best when it matches too much to take in the statement timeout. */
  private static final String NARROWS = "filter.from";

  private final JobQueries jobs;
  private final JobListing listing;
  private final BulkActionStore store;
  private final BulkRunner runner;
  private final int maxJobs;

  /** {@code listing}: what a filter may ask of the store (a payload search's range). */
  public BulkResource(
      JobQueries jobs, JobListing listing, BulkActionStore store, BulkRunner runner, int maxJobs) {
    this.jobs = jobs;
    this.listing = listing;
    this.store = store;
    this.runner = runner;
    this.maxJobs = maxJobs;
  }

  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public Response start(@Context ContainerRequestContext request, JsonNode body) {
    RequestContext context = RequestContext.of(request);
    BulkRequest bulk = BulkRequest.parse(context.namespace(), body);
    listing.requirePayloadRange(bulk.filter(), "filter.", Problems::invalid);
    if (bulk.dryRun()) {
      long matching = StoreFailures.narrowable(NARROWS, () -> jobs.count(bulk.filter()));
      return Response.ok(Map.of("count", matching)).build();
    }
    UUID id = UUID.randomUUID();
    OptionalInt count =
        StoreFailures.narrowable(
            NARROWS,
            () ->
                store.create(
                    id,
                    bulk.action(),
                    bulk.filterJson(),
                    context.principal().keyId(),
                    bulk.filter(),
                    maxJobs,
                    runner.owner()));
    if (count.isEmpty()) {
      throw Problems.invalid(
          "filter", "matches more than " + maxJobs + " jobs (api.bulkMaxJobs); narrow it");
    }
    BulkAction accepted =
        new BulkAction(id.toString(), bulk.action(), "running", count.getAsInt(), 0, 0, null);
    runner.start(id);
    return Response.accepted(accepted).location(URI.create("/api/v1/jobs/bulk/" + id)).build();
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.READ)
  public BulkAction get(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID bulkId;
    try {
      bulkId = UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw notFound("bulk action", id);
    }
    return store.find(namespace, bulkId).orElseThrow(() -> notFound("bulk action", id));
  }
}
