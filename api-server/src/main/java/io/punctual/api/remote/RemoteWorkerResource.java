package io.punctual.api.remote;

import static io.punctual.api.problem.ResourceRefusals.notFound;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.problem.Problems;
import io.punctual.handler.JobContext;
import io.punctual.requests.JobFields;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker protocol after registration ({@code POST /api/v1/workers}): a remote worker claims
 * attempts with a long poll, heartbeats those it holds (with their progress and log lines; the
 * answer names those it must stop), completes each, and deregisters. Only its own namespace's key
 * reaches it (another namespace's is a 404, as for any object), with the {@code worker} role.
 */
@Path("/api/v1/workers/{id}")
@Produces(MediaType.APPLICATION_JSON)
public final class RemoteWorkerResource {
  private final RemoteWorkers workers;
  private final JobFields jobFields;

  public RemoteWorkerResource(RemoteWorkers workers, JobFields.Rules jobFieldRules) {
    this.workers = workers;
    this.jobFields = new JobFields(jobFieldRules);
  }

  /** An attempt handed to a remote worker. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record ClaimedAttempt(
      String jobId,
      String namespace,
      String type,
      int attempt,
      int maxAttempts,
      JsonNode payload,
      String idempotencyKey,
      List<String> tags,
      Instant deadline,
      String traceparent) {
    static ClaimedAttempt of(JobContext ctx) {
      return new ClaimedAttempt(
          ctx.jobId().toString(),
          ctx.namespace(),
          ctx.type(),
          ctx.attempt(),
          ctx.maxAttempts(),
          ctx.payload(),
          ctx.idempotencyKey(),
          ctx.tags(),
          ctx.deadline(),
          ctx.traceparent());
    }
  }

  /** What a claim hands over: up to {@code max} attempts, none when none came within the wait. */
  public record Claimed(List<ClaimedAttempt> attempts) {}

  /** An attempt the remote worker must stop: cancelled, timed out, or no longer its own. */
  public record StopAttempt(String jobId, int attempt) {}

  /** A heartbeat's answer: the attempts to stop now. */
  public record Beaten(List<StopAttempt> stop) {}

  /** A completion's answer: recorded (it is written within milliseconds, fenced as any). */
  public record Completed(String jobId, int attempt, boolean recorded) {}

  private RemoteSession session(ContainerRequestContext request, String id) {
    String namespace = RequestContext.of(request).namespace();
    RemoteSession session = workers.find(namespace, id).orElseThrow(() -> notFound("worker", id));
    session.touch();
    return session;
  }

  @POST
  @Path("claim")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.WORK)
  public Claimed claim(
      @Context ContainerRequestContext request, @PathParam("id") String id, JsonNode body)
      throws InterruptedException {
    RemoteSession session = session(request, id);
    RemoteRequests.Claim claim =
        RemoteRequests.claim(body, session.declared().concurrency(), workers.settings().maxWait);
    return new Claimed(
        session.claim(claim.max(), claim.waitFor()).stream().map(ClaimedAttempt::of).toList());
  }

  @POST
  @Path("heartbeat")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.WORK)
  public Beaten heartbeat(
      @Context ContainerRequestContext request, @PathParam("id") String id, JsonNode body) {
    RemoteSession session = session(request, id);
    List<RemoteRequests.Beat> beats =
        RemoteRequests.heartbeat(body, session.declared().concurrency());
    List<StopAttempt> stop = new ArrayList<>();
    for (RemoteRequests.Beat beat : beats) {
      RemoteAttempt held = session.held(beat.jobId(), beat.attempt());
      if (held == null || held.ctx().isCancelled()) {
        stop.add(new StopAttempt(beat.jobId().toString(), beat.attempt()));
        if (held == null) {
          workers.lateReports.mark();
        }
        continue;
      }
      JobContext ctx = held.ctx();
      if (beat.progress() != null && beat.progress().done() != null) {
        ctx.progress(beat.progress().done(), beat.progress().total());
      } else if (beat.progress() != null) {
        ctx.progress(beat.progress().percent());
      }
      beat.lines().forEach(ctx::log);
    }
    return new Beaten(stop);
  }

  @POST
  @Path("complete")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.WORK)
  public Completed complete(
      @Context ContainerRequestContext request, @PathParam("id") String id, JsonNode body) {
    RemoteRequests.Completion c = RemoteRequests.completion(body, jobFields);
    String namespace = RequestContext.of(request).namespace();
    RemoteSession session =
        workers
            .find(namespace, id)
            .orElseThrow(
                () -> {
                  workers.lateReports.mark(); // a worker taken for dead: its attempts are rescued
                  return notFound("worker", id);
                });
    session.touch();
    RemoteAttempt held = session.held(c.jobId(), c.attempt());
    if (held == null || !held.complete(c.result())) {
      workers.lateReports.mark();
      throw Problems.conflict(
          "attempt-not-held",
          "Attempt not held",
          "Attempt "
              + c.attempt()
              + " of job "
              + c.jobId()
              + " is not held by this worker (it was cancelled, timed out, completed or rescued):"
              + " its result is refused.",
          "attempt");
    }
    return new Completed(c.jobId().toString(), c.attempt(), true);
  }

  @DELETE
  @Timed
  @Requires(Permission.WORK)
  public Response deregister(@Context ContainerRequestContext request, @PathParam("id") String id) {
    workers.deregister(session(request, id));
    return Response.accepted().build();
  }
}
