package io.punctual.api.jobs;

import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problems;
import io.punctual.model.JobState;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/**
 * {@code POST /api/v1/jobs/{id}/retry}: a FAILED, CANCELLED or SKIPPED job runs again as a new
 * attempt (the RERUN transitions of JobState); 409 for a job still on its way, or SUCCEEDED. A
 * retry adds a pending job like a submit, so it is admitted by the namespace's quotas first ({@link
 * NamespaceGate}: active, maxPending, the submit rate; 409 and 429 as for a submit), before the job
 * is looked at: a refused retry costs no database work, and a retry of a job that turns out not to
 * be retryable has spent its token.
 */
@Path("/api/v1/jobs/{id}/retry")
@Produces(MediaType.APPLICATION_JSON)
public final class JobRetryResource {
  private final JobActions actions;
  private final NamespaceGate gate;

  public JobRetryResource(JobActions actions, NamespaceGate gate) {
    this.actions = actions;
    this.gate = gate;
  }

  @POST
  @Timed
  @Requires(Permission.OPERATE)
  public Response retry(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID jobId = pathId("job", id);
    RateHeaders rate = new RateHeaders();
    JobActions.RetryResult result;
    try (NamespaceGate.Admission admitted = gate.admit(namespace, 1, i -> null, i -> "", rate)) {
      result = actions.retry(namespace, jobId);
    }
    return switch (result) {
      case JobActions.RetryResult.Retried r -> {
        Response.ResponseBuilder ok = Response.ok(JobRepresentation.of(r.job()));
        rate.writeTo(ok::header);
        yield ok.build();
      }
      case JobActions.RetryResult.NotRetryable n -> throw notRetryable(id, n.job().status());
      case JobActions.RetryResult.NotFound f -> throw notFound("job", id);
    };
  }

  private static RuntimeException notRetryable(String id, JobState status) {
    String detail =
        "Job " + id + " is " + status + "; only FAILED, CANCELLED or SKIPPED jobs are retried.";
    return status == JobState.SUCCEEDED
        ? Problems.conflict("job-succeeded", "Job succeeded", detail, null)
        : Problems.conflict("job-not-final", "Job not final", detail, null);
  }
}
