package io.punctual.api.limits;

import com.codahale.metrics.annotation.Timed;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.context.RequestContext;
import io.punctual.api.problem.Problems;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.store.limit.LimitStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/v1/queues}: pausing a job type of the request's namespace (nothing new of it starts,
 * running attempts finish) and resuming it; the list of paused types.
 */
@Path("/api/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public final class QueuesResource {
  private static final Logger log = LoggerFactory.getLogger(QueuesResource.class);

  private final LimitStore store;
  private final LimitHolds holds;

  public QueuesResource(LimitStore store, LimitHolds holds) {
    this.store = store;
    this.holds = holds;
  }

  /** A paused type. */
  public record PausedType(String type, boolean paused, Instant pausedAt) {}

  /** The paused types of the namespace. */
  public record Queues(List<PausedType> paused) {}

  @GET
  @Timed
  @Requires(Permission.READ)
  public Queues list(@Context ContainerRequestContext request) {
    String namespace = RequestContext.of(request).namespace();
    return new Queues(
        store.paused(namespace).stream()
            .map(p -> new PausedType(p.type(), true, p.pausedAt()))
            .toList());
  }

  /** Pauses the type (idempotent): from the next claim on none of its jobs starts. */
  @POST
  @Path("{type}/pause")
  @Timed
  @Requires(Permission.OPERATE)
  public PausedType pause(
      @Context ContainerRequestContext request, @PathParam("type") String type) {
    String namespace = RequestContext.of(request).namespace();
    check(type);
    store.pause(namespace, type);
    Instant at =
        store.paused(namespace).stream()
            .filter(p -> p.type().equals(type))
            .map(LimitStore.Paused::pausedAt)
            .findFirst()
            .orElse(null);
    return new PausedType(type, true, at);
  }

  /** Resumes the type (idempotent); its waiting jobs go back to their queues at once. */
  @POST
  @Path("{type}/resume")
  @Timed
  @Requires(Permission.OPERATE)
  public PausedType resume(
      @Context ContainerRequestContext request, @PathParam("type") String type) {
    String namespace = RequestContext.of(request).namespace();
    check(type);
    store.resume(namespace, type);
    try {
      holds.resume(namespace, type);
    } catch (RuntimeException e) {
      // The reaper's next pass moves them (a paused hold set of a type no longer paused).
      log.warn(
          "could not move the jobs of resumed type {} namespace={} back yet: {}",
          type,
          namespace,
          e.toString());
    }
    return new PausedType(type, false, null);
  }

  private static void check(String type) {
    if (type == null
        || type.isBlank()
        || type.length() > LimitRequestParser.MAX_TYPE
        || type.indexOf('\0') >= 0) {
      throw Problems.badParameter("type", "must be 1 to 200 characters");
    }
  }
}
