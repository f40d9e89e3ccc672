package io.punctual.api.schedules;

import static io.punctual.api.problem.ResourceRefusals.conflictOn;
import static io.punctual.api.problem.ResourceRefusals.notFound;
import static io.punctual.api.problem.ResourceRefusals.pathId;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.auth.Permission;
import io.punctual.api.auth.Requires;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.context.RequestContext;
import io.punctual.api.http.NameCursor;
import io.punctual.api.http.QueryParams;
import io.punctual.api.jobs.JobPage;
import io.punctual.api.jobs.JobRepresentation;
import io.punctual.api.jobs.QueueWriter;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problems;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.requests.Fields;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleNameTakenException;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.schedule.store.ScheduleDefinitions.Changed;
import io.punctual.schedule.store.ScheduleDefinitions.Listing;
import io.punctual.schedule.store.ScheduleDefinitions.Registered;
import io.punctual.schedule.store.ScheduleDefinitions.Registration;
import io.punctual.schedule.store.ScheduleJobs;
import io.punctual.store.JobQueries.Page;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * {@code /api/v1/schedules}: create (or register by {@code initIdentifier}), read, list, replace,
 * delete, pause, resume, trigger, preview the fire times, and list a schedule's jobs. Every call
 * acts in the request's namespace. The planner materialises the occurrences; this resource only
 * changes definitions, and takes out of Redis the jobs a change cancelled.
 */
@Path("/api/v1/schedules")
@Produces(MediaType.APPLICATION_JSON)
public final class SchedulesResource {
  private static final String SCHEDULE = "schedule";

  static final int DEFAULT_PREVIEW = 10;
  static final int MAX_PREVIEW = 1_000;

  private final ScheduleDefinitions definitions;
  private final ScheduleJobs jobs;
  private final QueueWriter queue;
  private final ScheduleRequestParser parser;
  private final ApiSettings settings;
  private final Clock clock;
  private final NamespaceGate gate;

  /**
   * {@code gate}: a schedule is created or redefined only in an active namespace; a trigger is a
   * submit.
   */
  public SchedulesResource(
      NamespaceGate gate,
      ScheduleDefinitions definitions,
      ScheduleJobs jobs,
      QueueWriter queue,
      ScheduleRequestParser parser,
      ApiSettings settings,
      Clock clock) {
    this.definitions = definitions;
    this.jobs = jobs;
    this.queue = queue;
    this.parser = parser;
    this.settings = settings;
    this.clock = clock;
    this.gate = gate;
  }

  /**
   * 201 with the new schedule; with an {@code initIdentifier} already registered in the namespace,
   * 200 with that schedule, redefined to this body if it differs (static registration).
   */
  @POST
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public Response create(@Context ContainerRequestContext request, JsonNode body) {
    String namespace = RequestContext.of(request).namespace();
    ScheduleDefinition definition = parse(body);
    gate.requireActive(namespace);
    UUID id;
    boolean created;
    if (definition.initIdentifier() != null) {
      Registered registered = nameTaken(() -> definitions.register(namespace, definition));
      toRedis(registered.cancelled(), registered.released());
      id = registered.schedule().id();
      created = registered.registration() == Registration.CREATED;
    } else {
      id = nameTaken(() -> definitions.create(namespace, definition)).id();
      created = true;
    }
    URI location = URI.create("/api/v1/schedules/" + id);
    return (created ? Response.created(location) : Response.ok().location(location))
        .entity(representation(namespace, id))
        .build();
  }

  @GET
  @Timed
  @Requires(Permission.READ)
  public SchedulePage list(
      @Context ContainerRequestContext request,
      @QueryParam("status") String status,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    String namespace = RequestContext.of(request).namespace();
    Listing page =
        definitions.list(
            namespace,
            scheduleStatus(status),
            NameCursor.decode(cursor, ScheduleRequestParser.MAX_NAME_LENGTH),
            QueryParams.limit(limit, settings));
    Instant now = clock.instant();
    return new SchedulePage(
        page.items().stream().map(s -> ScheduleRepresentation.of(s, now)).toList(),
        NameCursor.encode(page.nextAfterName()));
  }

  @GET
  @Path("{id}")
  @Timed
  @Requires(Permission.READ)
  public ScheduleRepresentation get(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    return representation(namespace, pathId(SCHEDULE, id));
  }

  /**
   * Replaces the definition (the same body as a create). Its jobs not started yet and due later are
   * cancelled and it is planned again under the new definition. An {@code initIdentifier} cannot be
   * changed; left out, it is kept. An unknown id is a 404 whatever the body: the schedule is looked
   * up before the body is validated.
   */
  @PUT
  @Path("{id}")
  @Timed
  @Consumes(MediaType.APPLICATION_JSON)
  @Requires(Permission.OPERATE)
  public ScheduleRepresentation replace(
      @Context ContainerRequestContext request, @PathParam("id") String id, JsonNode body) {
    String namespace = RequestContext.of(request).namespace();
    UUID scheduleId = pathId(SCHEDULE, id);
    Schedule current =
        definitions.find(namespace, scheduleId).orElseThrow(() -> notFound(SCHEDULE, id));
    ScheduleDefinition parsed = parse(body);
    String key = current.definition().initIdentifier();
    if (parsed.initIdentifier() != null && !parsed.initIdentifier().equals(key)) {
      throw Problems.invalid(
          "initIdentifier",
          key == null ? "cannot be added to a schedule created without one" : "cannot be changed");
    }
    ScheduleDefinition definition = withInitIdentifier(parsed, key);
    gate.requireActive(namespace);
    Changed changed =
        nameTaken(() -> definitions.redefine(namespace, scheduleId, definition))
            .orElseThrow(() -> notFound(SCHEDULE, id));
    toRedis(changed.cancelled(), changed.released());
    return representation(namespace, scheduleId);
  }

  /** Deletes the schedule; its jobs not started yet and due later are cancelled. */
  @DELETE
  @Path("{id}")
  @Timed
  @Requires(Permission.OPERATE)
  public Deleted delete(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    Changed deleted =
        definitions
            .delete(namespace, pathId(SCHEDULE, id))
            .orElseThrow(() -> notFound(SCHEDULE, id));
    toRedis(deleted.cancelled(), deleted.released());
    return new Deleted(id, deleted.cancelled().size());
  }

  @POST
  @Path("{id}/pause")
  @Timed
  @Requires(Permission.OPERATE)
  public ScheduleRepresentation pause(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID scheduleId = pathId(SCHEDULE, id);
    Changed changed =
        definitions.pause(namespace, scheduleId).orElseThrow(() -> notFound(SCHEDULE, id));
    toRedis(changed.cancelled(), changed.released());
    return representation(namespace, scheduleId);
  }

  @POST
  @Path("{id}/resume")
  @Timed
  @Requires(Permission.OPERATE)
  public ScheduleRepresentation resume(
      @Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID scheduleId = pathId(SCHEDULE, id);
    if (definitions.resume(namespace, scheduleId).isEmpty()) {
      throw notFound(SCHEDULE, id);
    }
    return representation(namespace, scheduleId);
  }

  /** One run now, whatever the status, outside the fire times: 201 with the job. */
  @POST
  @Path("{id}/trigger")
  @Timed
  @Requires(Permission.OPERATE)
  public Response trigger(@Context ContainerRequestContext request, @PathParam("id") String id) {
    String namespace = RequestContext.of(request).namespace();
    UUID scheduleId = pathId(SCHEDULE, id);
    RateHeaders rate = new RateHeaders();
    Job job;
    try (NamespaceGate.Admission admitted = gate.admit(namespace, 1, i -> null, i -> "", rate)) {
      job = jobs.trigger(namespace, scheduleId).orElseThrow(() -> notFound(SCHEDULE, id));
    }
    queue.enqueue(List.of(QueueEntry.of(job)));
    Response.ResponseBuilder response = Response.created(URI.create("/api/v1/jobs/" + job.id()));
    rate.writeTo(response::header);
    return response.entity(JobRepresentation.of(job, List.of())).build();
  }

  /** The next {@code count} fire times at or after {@code from} (default now), UTC. */
  @GET
  @Path("{id}/preview")
  @Timed
  @Requires(Permission.READ)
  public Preview preview(
      @Context ContainerRequestContext request,
      @PathParam("id") String id,
      @QueryParam("count") String count,
      @QueryParam("from") String from) {
    String namespace = RequestContext.of(request).namespace();
    int n = previewCount(count);
    Instant start = from == null || from.isBlank() ? clock.instant() : instantParam("from", from);
    Schedule schedule =
        definitions.find(namespace, pathId(SCHEDULE, id)).orElseThrow(() -> notFound(SCHEDULE, id));
    return new Preview(schedule.fireTimes().list(start, n));
  }

  /** The schedule's jobs, newest scheduled first, in the shape of {@code GET /jobs}. */
  @GET
  @Path("{id}/jobs")
  @Timed
  @Requires(Permission.READ)
  public JobPage jobs(
      @Context ContainerRequestContext request,
      @PathParam("id") String id,
      @QueryParam("status") String status,
      @QueryParam("limit") String limit,
      @QueryParam("cursor") String cursor) {
    String namespace = RequestContext.of(request).namespace();
    UUID scheduleId = pathId(SCHEDULE, id);
    JobState state = jobState(status);
    int pageSize = QueryParams.limit(limit, settings);
    UUID after = QueryParams.idCursor(cursor);
    if (definitions.find(namespace, scheduleId).isEmpty()) {
      throw notFound(SCHEDULE, id);
    }
    Page<Job> page = jobs.page(namespace, scheduleId, state, after, pageSize);
    return new JobPage(
        page.items().stream().map(JobRepresentation::of).toList(),
        page.nextCursor() == null ? null : page.nextCursor().toString());
  }

  // --- helpers

  /** The schedule in a request body; a 422 naming every invalid field (or a 413, a 400). */
  private ScheduleDefinition parse(JsonNode body) {
    Problems.requireBody(body);
    return parser.parse(body, clock.instant());
  }

  private ScheduleRepresentation representation(String namespace, UUID id) {
    Schedule schedule =
        definitions.find(namespace, id).orElseThrow(() -> notFound(SCHEDULE, id.toString()));
    return ScheduleRepresentation.of(schedule, clock.instant());
  }

  /**
   * Takes the cancelled jobs out of Redis and puts in the jobs that waited for them and were
   * released (a failure of either is repaired by the reaper).
   */
  private void toRedis(List<QueueEntry> cancelled, List<QueueEntry> released) {
    queue.removeAll(cancelled);
    queue.enqueue(released);
  }

  private static ScheduleDefinition withInitIdentifier(ScheduleDefinition d, String key) {
    return new ScheduleDefinition(
        d.name(),
        key,
        d.cron(),
        d.every(),
        d.zone(),
        d.dst(),
        d.startAt(),
        d.endAt(),
        d.misfire(),
        d.overlap(),
        d.job());
  }

  private static <T> T nameTaken(Supplier<T> work) {
    return conflictOn(
        ScheduleNameTakenException.class,
        work,
        e ->
            Problems.conflict(
                "schedule-name-taken",
                "Schedule name taken",
                "This namespace already has a schedule named " + e.name() + ".",
                "name"));
  }

  private static ScheduleStatus scheduleStatus(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return ScheduleStatus.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Problems.badParameter("status", "must be one of " + names(ScheduleStatus.values()));
    }
  }

  private static JobState jobState(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return JobState.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Problems.badParameter("status", "must be one of " + names(JobState.values()));
    }
  }

  private static String names(Enum<?>[] values) {
    return Arrays.stream(values).map(Enum::name).collect(Collectors.joining(", "));
  }

  private static int previewCount(String value) {
    if (value == null || value.isBlank()) {
      return DEFAULT_PREVIEW;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= MAX_PREVIEW) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw Problems.badParameter("count", "must be an integer between 1 and " + MAX_PREVIEW);
  }

  private static Instant instantParam(String name, String value) {
    return Optional.ofNullable(Fields.parseInstant(value.trim()))
        .filter(i -> !i.isBefore(Instant.EPOCH) && !i.isAfter(Fields.LATEST))
        .orElseThrow(
            () ->
                Problems.badParameter(
                    name,
                    "must be an ISO-8601 date-time with offset such as 2030-01-01T09:00:00Z"));
  }
}
