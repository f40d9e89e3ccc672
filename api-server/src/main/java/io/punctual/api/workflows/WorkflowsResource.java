package io.punctual.api.workflows;

import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.RequestContext;
import io.punctual.api.jobs.JobSubmitter;
import io.punctual.api.jobs.QueueWriter;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problems;
import io.punctual.model.JobState;
import io.punctual.queue.CancelNotice;
import io.punctual.requests.jobs.WorkflowRequestParser;
import io.punctual.store.WorkflowStore;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * {@code /api/v1/workflows}: a graph of jobs submitted in one call and stored in one transaction,
 * read back with every step's state, cancelled as a whole.
 */
@Path("/api/v1/workflows")
@Produces(MediaType.APPLICATION_JSON)
public final class WorkflowsResource {
  private static final String WORKFLOW = "workflow";

  private final WorkflowStore store;
  private final JobSubmitter submitter;
  private final QueueWriter queue;
  private final WorkflowRequestParser parser;

  public WorkflowsResource(
      WorkflowStore store, JobSubmitter submitter, QueueWriter queue, ApiSettings settings) {
    this.store = store;
    this.submitter = submitter;
    this.queue = queue;
    this.parser = new WorkflowRequestParser(settings.submitLimits());
  }

  /** 201 with the workflow; 200 with the stored one for a repeat of the same idempotencyKey. */
  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.SUBMIT)
  public Response submit(@Context ContainerRequestContext request, JsonNode body) {
    WorkflowRequestParser.ValidatedWorkflow workflow =
        parser.parse(body).withTraceparent(request.getHeaderString("traceparent"));
    String namespace = RequestContext.of(request).namespace();
    RateHeaders rate = new RateHeaders();
    WorkflowStore.Created created = submitter.submit(namespace, workflow, rate);
    WorkflowRepresentation representation = WorkflowRepresentation.of(created.workflow());
    Response.ResponseBuilder response =
        created.created()
            ? Response.created(URI.create("/api/v1/workflows/" + representation.id()))
            : Response.ok();
    rate.writeTo(response::header);
    return response.entity(representation).build();
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.READ)
  public WorkflowRepresentation get(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    return store
        .find(namespace, pathId(WORKFLOW, id))
        .map(WorkflowRepresentation::of)
        .orElseThrow(() -> notFound(WORKFLOW, id));
  }

  /**
   * Cancels every step not final yet; jobs waiting for them are judged at once (a step waiting for
   * a cancelled one on {@code always} may still run). A workflow whose steps are all final already
   * (it SUCCEEDED, FAILED, or was cancelled before and nothing of it runs any more) answers 409, as
   * a final job does, and is left as it is.
   */
  @POST
  @Path("{id}/cancel")
  @Timed
  @Requires(Permission.OPERATE)
  public WorkflowRepresentation cancel(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID workflowId = pathId(WORKFLOW, id);
    // A final step never changes again, so a workflow found all final stays so: refuse it before
    // marking anything. One with a step still going is cancelled (if that step ends meanwhile, the
    // cancel marks the workflow CANCELLED with nothing left to cancel, as it always did).
    WorkflowStore.Workflow current =
        store.find(namespace, workflowId).orElseThrow(() -> notFound(WORKFLOW, id));
    if (allFinal(current)) {
      throw Problems.conflict(
          "workflow-final",
          "Workflow already final",
          "Workflow "
              + id
              + " is already "
              + current.status()
              + " (every step is final) and cannot be cancelled.",
          null);
    }
    WorkflowStore.Cancelled cancelled =
        store.cancel(namespace, workflowId).orElseThrow(() -> notFound(WORKFLOW, id));
    queue.removeAll(cancelled.cancelled());
    queue.announceCancels(runningStepsCancelled(current, cancelled));
    submitter.enqueueReleased(cancelled.released());
    return WorkflowRepresentation.of(cancelled.workflow());
  }

  /** The steps that were running (as read before the cancel) and are cancelled now. */
  private static List<CancelNotice> runningStepsCancelled(
      WorkflowStore.Workflow before, WorkflowStore.Cancelled cancelled) {
    Set<UUID> ids = new HashSet<>();
    cancelled.cancelled().forEach(e -> ids.add(e.id()));
    Instant at = cancelled.workflow().cancelledAt();
    List<CancelNotice> notices = new ArrayList<>();
    for (var step : before.steps()) {
      if (step.job().status() == JobState.RUNNING && ids.contains(step.job().id())) {
        // Attempt 0: whichever attempt runs now (one claimed after the read above too).
        notices.add(new CancelNotice(step.job().id(), 0, at));
      }
    }
    return notices;
  }

  private static boolean allFinal(WorkflowStore.Workflow workflow) {
    return workflow.steps().stream().allMatch(s -> s.job().status().isTerminal());
  }
}
