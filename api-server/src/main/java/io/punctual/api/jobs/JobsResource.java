package io.punctual.api.jobs;

import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problems;
import io.punctual.api.problem.StoreFailures;
import io.punctual.model.Job;
import io.punctual.requests.jobs.JobRequestParser;
import io.punctual.requests.jobs.ValidatedJob;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.JobQueries;
import io.punctual.store.JobQueries.Page;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.JobTransitions.CancelResult;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@code /api/v1/jobs}: submit, batch submit, read, list (also by idempotency key and payload),
 * cancel, a job's executions and its children.
 */
@Path("/api/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public final class JobsResource {
  private static final String JOB = "job";

  /** The W3C Trace Context header a submit may carry: its jobs' attempts continue that trace. */
  static final String TRACEPARENT = "traceparent";

  private final JobQueries store;
  private final JobActions actions;
  private final JobSubmitter submitter;
  private final JobRequestParser parser;
  private final JobListing listing;
  private final AttemptOutputs outputs;

  public JobsResource(
      JobQueries store,
      JobActions actions,
      JobSubmitter submitter,
      JobRequestParser parser,
      JobListing listing,
      AttemptOutputs outputs) {
    this.outputs = outputs;
    this.store = store;
    this.actions = actions;
    this.submitter = submitter;
    this.parser = parser;
    this.listing = listing;
  }

  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.SUBMIT)
  public Response submit(@Context ContainerRequestContext request, JsonNode body) {
    Problems.requireBody(body);
    ValidatedJob job = parser.parseOne(body).withTraceparent(request.getHeaderString(TRACEPARENT));
    String namespace = RequestContext.of(request).namespace();
    RateHeaders rate = new RateHeaders();
    Submitted submitted = submitter.submitOne(namespace, job, rate);
    Job stored = submitted.job();
    Response.ResponseBuilder response =
        submitted.created()
            ? Response.created(URI.create("/api/v1/jobs/" + stored.id()))
            : Response.ok();
    rate.writeTo(response::header);
    return response.entity(representation(submitted, job)).build();
  }

  /** The body answering a single submit: the stored job, and what it waits for as requested. */
  static JobRepresentation representation(Submitted submitted, ValidatedJob job) {
    return JobRepresentation.of(submitted.job(), job.dependsOn());
  }

  @POST
  @Path("batch")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.SUBMIT)
  public Response submitBatch(@Context ContainerRequestContext request, JsonNode body) {
    Problems.requireBody(body);
    String traceparent = request.getHeaderString(TRACEPARENT);
    List<ValidatedJob> jobs =
        parser.parseBatch(body).stream().map(j -> j.withTraceparent(traceparent)).toList();
    String namespace = RequestContext.of(request).namespace();
    RateHeaders rate = new RateHeaders();
    List<Submitted> stored = submitter.submit(namespace, jobs, i -> "jobs[" + i + "].", rate);
    List<JobRepresentation> items = new ArrayList<>(stored.size());
    for (int i = 0; i < stored.size(); i++) {
      items.add(JobRepresentation.of(stored.get(i).job(), jobs.get(i).dependsOn()));
    }
    Response.ResponseBuilder response = Response.status(Response.Status.CREATED);
    rate.writeTo(response::header);
    return response.entity(new Items<>(items)).build();
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.READ)
  public JobRepresentation get(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    Job job = store.find(namespace, pathId(JOB, id)).orElseThrow(() -> notFound(JOB, id));
    return JobRepresentation.of(
        job,
        store.dependsOn(namespace, List.of(job.id())).get(job.id()),
        job.attempt() == 0 ? null : outputs.latestProgress(namespace, job.id()).orElse(null));
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public JobPage list(
      @Context ContainerRequestContext request,
      @QueryParam("status") String status,
      @QueryParam("type") String type,
      @QueryParam("tag") String tag,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("idempotencyKey") String idempotencyKey,
      @QueryParam("payload") String payload,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    String namespace = RequestContext.of(request).namespace();
    ListParams.FilterFields fields =
        new ListParams.FilterFields(status, type, tag, from, to, idempotencyKey, payload);
    JobQueries.JobQuery query = listing.query(namespace, fields, limit, cursor);
    Page<Job> page = StoreFailures.narrowable("from", () -> store.list(query));
    return new JobPage(
        page.items().stream().map(JobRepresentation::of).toList(),
        page.nextCursor() == null ? null : page.nextCursor().toString());
  }

  @POST
  @Path("{id}/cancel")
  @Timed
  @Requires(Permission.OPERATE)
  public JobRepresentation cancel(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID jobId = pathId(JOB, id);
    // Its Redis side too: out of its queue, or the running attempt told to stop; waiters enqueued.
    return switch (actions.cancel(namespace, jobId)) {
      case CancelResult.Cancelled c -> withDependsOn(namespace, c.job());
      case CancelResult.AlreadyFinal f ->
          throw Problems.conflict(
              "job-final",
              "Job already final",
              "Job " + id + " is already " + f.job().status() + " and cannot be cancelled.",
              null);
      case CancelResult.NotFound n -> throw notFound(JOB, id);
    };
  }

  @GET
  @Path("{id}/executions")
  @Timed
  @Requires(Permission.READ)
  public Items<ExecutionRepresentation> executions(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID jobId = pathId(JOB, id);
    if (store.find(namespace, jobId).isEmpty()) {
      throw notFound(JOB, id);
    }
    return new Items<>(
        store.executions(namespace, jobId).stream().map(ExecutionRepresentation::of).toList());
  }

  @GET
  @Path("{id}/children")
  @Timed
  @Requires(Permission.READ)
  public JobPage children(
      @Context ContainerRequestContext request,
      @PathParam("id") String id,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    String namespace = RequestContext.of(request).namespace();
    UUID jobId = pathId(JOB, id);
    int pageSize = listing.pageSize(limit);
    UUID after = QueryParams.idCursor(cursor);
    if (store.find(namespace, jobId).isEmpty()) {
      throw notFound(JOB, id);
    }
    Page<Job> page = store.children(namespace, jobId, after, pageSize);
    return new JobPage(
        page.items().stream().map(JobRepresentation::of).toList(),
        page.nextCursor() == null ? null : page.nextCursor().toString());
  }

  /** One job as read, with its dependencies (one more statement). */
  private JobRepresentation withDependsOn(String namespace, Job job) {
    return JobRepresentation.of(job, store.dependsOn(namespace, List.of(job.id())).get(job.id()));
  }
}
