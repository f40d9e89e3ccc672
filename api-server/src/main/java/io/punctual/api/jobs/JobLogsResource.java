package io.punctual.api.jobs;

import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.QueryParams;
import io.punctual.model.Job;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.LogLine;
import io.punctual.store.JobQueries;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /api/v1/jobs/{id}/logs?attempt=&after=&limit=}: one attempt's log lines (the latest
 * attempt that logged any, by default) in order, from after line {@code after} (0: the first), at
 * most {@code limit} (default and most {@link #MAX_LIMIT}); {@code next} is the {@code after} of
 * the following page, so a console polls with it for the lines as they arrive.
 */
@Path("/api/v1/jobs/{id}/logs")
@Produces(MediaType.APPLICATION_JSON)
public final class JobLogsResource {
  /** The most lines one answer holds. */
  public static final int MAX_LIMIT = 1000;

  private final JobQueries jobs;
  private final AttemptOutputs outputs;

  public JobLogsResource(JobQueries jobs, AttemptOutputs outputs) {
    this.jobs = jobs;
    this.outputs = outputs;
  }

  /** A page of an attempt's log. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record LogPage(String jobId, Integer attempt, List<LineRepresentation> lines, int next) {}

  /** A line as logged: its number in the attempt (from 1), when, and its text. */
  public record LineRepresentation(int seq, Instant at, String line) {
    static LineRepresentation of(LogLine line) {
      return new LineRepresentation(line.seq(), line.at(), line.line());
    }
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public LogPage logs(
      @Context ContainerRequestContext request,
      @PathParam("id") String id,
      @QueryParam("attempt") String attemptParam,
      @QueryParam("after") String afterParam,
      @QueryParam("limit") String limitParam) {
    String namespace = RequestContext.of(request).namespace();
    UUID jobId = pathId("job", id);
    int after = QueryParams.integer("after", afterParam, 0, 0, Integer.MAX_VALUE);
    int limit = QueryParams.integer("limit", limitParam, MAX_LIMIT, 1, MAX_LIMIT);
    Integer wanted =
        attemptParam == null || attemptParam.isBlank()
            ? null
            : QueryParams.integer("attempt", attemptParam, 1, 1, 1000);
    Job job = jobs.find(namespace, jobId).orElseThrow(() -> notFound("job", id));
    Integer attempt =
        wanted != null
            ? wanted
            : outputs
                .lastLoggedAttempt(namespace, jobId)
                .orElse(job.attempt() > 0 ? job.attempt() : null);
    if (attempt == null) {
      return new LogPage(id, null, List.of(), after);
    }
    List<LineRepresentation> lines =
        outputs.logs(namespace, jobId, attempt, after, limit).stream()
            .map(LineRepresentation::of)
            .toList();
    int next = lines.isEmpty() ? after : lines.get(lines.size() - 1).seq();
    return new LogPage(id, attempt, lines, next);
  }
}
