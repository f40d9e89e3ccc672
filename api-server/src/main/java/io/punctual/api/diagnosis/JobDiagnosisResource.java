package io.punctual.api.diagnosis;

import static io.punctual.api.problem.ResourceRefusals.notFound;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.model.JobId;
import io.punctual.store.JobQueries;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /api/v1/jobs/{id}/diagnosis}: why a job of the namespace is where it is. */
@Path("/api/v1/jobs/{id}/diagnosis")
@Produces(MediaType.APPLICATION_JSON)
public final class JobDiagnosisResource {
  private final JobQueries jobs;
  private final Diagnoser diagnoser;

  public JobDiagnosisResource(JobQueries jobs, Diagnoser diagnoser) {
    this.jobs = jobs;
    this.diagnoser = diagnoser;
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public Diagnosis diagnose(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    return JobId.parse(id)
        .flatMap(jobId -> jobs.find(namespace, jobId))
        .map(diagnoser::diagnose)
        .orElseThrow(() -> notFound("job", id));
  }
}
