package io.punctual.schedule.store;

import io.punctual.model.JobId;
import io.punctual.model.QueueEntry;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleNameTakenException;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.store.ScheduleJobs.Cancellation;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The definitions of schedules: create (or register by {@code initIdentifier}), read, list,
 * replace, pause, resume and delete, each one transaction. A change that takes back a schedule's
 * future jobs (a replacement, a pause, a deletion) cancels them in the same transaction ({@link
 * ScheduleJobs#cancelFuture}); the caller takes them out of Redis after the commit. The planner
 * plans what is stored here. The SQL is in {@code ScheduleDefinitions/*.sql} beside this class.
 */
public final class ScheduleDefinitions {
  private static final Logger log = LoggerFactory.getLogger(ScheduleDefinitions.class);
  private static final SqlFiles SQL = new SqlFiles(ScheduleDefinitions.class);

  private final Jdbi jdbi;
  private final ScheduleJobs jobs;
  private final Clock clock;

  public ScheduleDefinitions(Jdbi jdbi, ScheduleJobs jobs, Clock clock) {
    this.jdbi = jdbi;
    this.jobs = jobs;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** Milliseconds are the precision of every stored time (job ids, Redis scores). */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /**
   * A schedule after a change, the jobs the change cancelled (to take out of Redis), and the jobs
   * that waited for those and became PENDING (to put into Redis).
   */
  public record Changed(Schedule schedule, List<QueueEntry> cancelled, List<QueueEntry> released) {
    Changed(Schedule schedule, Cancellation c) {
      this(schedule, c.cancelled(), c.released());
    }
  }

  /** A schedule and whether {@link #register} created, updated or left it as it was. */
  public record Registered(
      Schedule schedule,
      Registration registration,
      List<QueueEntry> cancelled,
      List<QueueEntry> released) {}

  /** What {@link #register} did. */
  public enum Registration {
    CREATED,
    UPDATED,
    UNCHANGED
  }

  /** A page of schedules by name and the name to continue after (null on the last page). */
  public record Listing(List<Schedule> items, String nextAfterName) {}

  /**
   * Creates an ACTIVE schedule, first planned by the next planner pass.
   *
   * @throws ScheduleNameTakenException when the namespace has a schedule of that name
   */
  public Schedule create(String namespace, ScheduleDefinition definition) {
    if (definition.initIdentifier() != null) {
      throw new IllegalArgumentException("a schedule with an initIdentifier is registered");
    }
    Instant now = now();
    UUID id = JobId.forScheduledTime(now);
    return DefinitionColumns.translateNameTaken(
        namespace,
        definition.name(),
        () ->
            jdbi.inTransaction(
                h ->
                    insert(h, id, namespace, definition, now)
                        .orElseThrow(() -> new IllegalStateException("insert returned no row"))));
  }

  /**
   * Static registration: the schedule keyed by {@code (namespace, definition.initIdentifier())} is
   * created if missing, redefined (and planned again) if its definition differs, left alone if the
   * same as stored (see {@link #storesDefinition}). A service declaring its schedules at every
   * start-up thus never creates duplicates, and several processes may do it at once. Whether it is
   * paused is not touched.
   */
  public Registered register(String namespace, ScheduleDefinition definition) {
    if (definition.initIdentifier() == null) {
      throw new IllegalArgumentException("register needs an initIdentifier");
    }
    Instant now = now();
    UUID id = JobId.forScheduledTime(now);
    return DefinitionColumns.translateNameTaken(
        namespace,
        definition.name(),
        () ->
            jdbi.inTransaction(
                h -> {
                  Optional<Schedule> existing = lockByInitIdentifier(h, namespace, definition);
                  if (existing.isEmpty()) {
                    Optional<Schedule> created = insert(h, id, namespace, definition, now);
                    if (created.isPresent()) {
                      return new Registered(
                          created.get(), Registration.CREATED, List.of(), List.of());
                    }
                    // Registered concurrently since we looked: it is committed and visible now.
                    existing = lockByInitIdentifier(h, namespace, definition);
                  }
                  Schedule schedule = existing.orElseThrow();
                  if (storesDefinition(h, schedule, definition)) {
                    return new Registered(schedule, Registration.UNCHANGED, List.of(), List.of());
                  }
                  Changed changed = redefine(h, schedule, definition, now);
                  return new Registered(
                      changed.schedule(),
                      Registration.UPDATED,
                      changed.cancelled(),
                      changed.released());
                }));
  }

  private static Optional<Schedule> insert(
      Handle h, UUID id, String namespace, ScheduleDefinition definition, Instant now) {
    Instant next = definition.fireTimes(now).firstFrom(now).orElse(null);
    return DefinitionColumns.bind(h.createQuery(sql("insert")), definition)
        .bind("id", id)
        .bind("namespace", namespace)
        .bind("nextFireAt", next)
        .bind("planAt", next == null ? null : now)
        .bind("now", now)
        .map(ScheduleRowMapper.PLAIN)
        .findOne();
  }

  /**
   * Whether the stored schedule has this definition, compared as stored rather than with {@link
   * ScheduleDefinition#equals}: its JSON went through jsonb (numbers rewritten, keys reordered) and
   * its durations were cut to milliseconds, so an unchanged declaration read back is not equal to
   * the one declared, and would otherwise be redefined (its look-ahead jobs cancelled) at every
   * start-up.
   */
  private static boolean storesDefinition(
      Handle h, Schedule schedule, ScheduleDefinition definition) {
    return DefinitionColumns.bind(h.createQuery(sql("sameDefinition")), definition)
        .bind("id", schedule.id())
        .mapTo(Boolean.class)
        .one();
  }

  private static Optional<Schedule> lockByInitIdentifier(
      Handle h, String namespace, ScheduleDefinition definition) {
    return h.createQuery(sql("lockByInitIdentifier"))
        .bind("namespace", namespace)
        .bind("initIdentifier", definition.initIdentifier())
        .map(ScheduleRowMapper.PLAIN)
        .findOne();
  }

  public Optional<Schedule> find(String namespace, UUID id) {
    Instant now = now();
    return jdbi.withHandle(h -> ScheduleRows.find(h, namespace, id, now));
  }

  /** A namespace's schedules by name, optionally of one status, after {@code afterName}. */
  public Listing list(String namespace, ScheduleStatus status, String afterName, int limit) {
    Instant now = now();
    List<Schedule> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(sql("list"))
                    .bind("namespace", namespace)
                    .bind("status", status == null ? null : status.name())
                    .bind("afterName", afterName)
                    .bind("limit", limit + 1)
                    .bind("now", now)
                    .map(ScheduleRowMapper.WITH_LAST_FIRED)
                    .list());
    if (rows.size() > limit) {
      List<Schedule> page = List.copyOf(rows.subList(0, limit));
      return new Listing(page, page.get(limit - 1).definition().name());
    }
    return new Listing(rows, null);
  }

  /**
   * Replaces a schedule's definition: its jobs not started and due later are cancelled and it is
   * planned again, from its first fire time from now on, under the new definition.
   *
   * @throws ScheduleNameTakenException when renamed to a name the namespace already has
   */
  public Optional<Changed> redefine(String namespace, UUID id, ScheduleDefinition definition) {
    Instant now = now();
    return DefinitionColumns.translateNameTaken(
        namespace,
        definition.name(),
        () ->
            jdbi.inTransaction(
                h ->
                    ScheduleRows.lock(h, namespace, id).map(s -> redefine(h, s, definition, now))));
  }

  private Changed redefine(
      Handle h, Schedule schedule, ScheduleDefinition definition, Instant now) {
    Cancellation cancelled = jobs.cancelFuture(h, schedule.id(), now, "schedule changed");
    Instant next = definition.fireTimes(schedule.createdAt()).firstFrom(now).orElse(null);
    Schedule updated =
        DefinitionColumns.bind(h.createQuery(sql("redefine")), definition)
            .bind("id", schedule.id())
            .bind("nextFireAt", next)
            .bind("planAt", next == null ? null : now)
            .bind("now", now)
            .map(ScheduleRowMapper.PLAIN)
            .one();
    log.info(
        "schedule redefined schedule={} namespace={} name={} nextFireAt={} cancelledJobs={}",
        schedule.id(),
        schedule.namespace(),
        definition.name(),
        next,
        cancelled.cancelled().size());
    return new Changed(updated, cancelled);
  }

  /** PAUSED: nothing new is planned, and its jobs not started and due later are cancelled. */
  public Optional<Changed> pause(String namespace, UUID id) {
    Instant now = now();
    return jdbi.inTransaction(
        h ->
            ScheduleRows.lock(h, namespace, id)
                .map(
                    s -> {
                      Cancellation cancelled = jobs.cancelFuture(h, id, now, "schedule paused");
                      Schedule paused =
                          h.createQuery(sql("pause"))
                              .bind("id", id)
                              .bind("now", now)
                              .map(ScheduleRowMapper.PLAIN)
                              .one();
                      log.info(
                          "schedule paused schedule={} namespace={} cancelledJobs={}",
                          id,
                          namespace,
                          cancelled.cancelled().size());
                      return new Changed(paused, cancelled);
                    }));
  }

  /** ACTIVE again from its first fire time from now on (the paused stretch is not caught up). */
  public Optional<Changed> resume(String namespace, UUID id) {
    Instant now = now();
    return jdbi.inTransaction(
        h ->
            ScheduleRows.lock(h, namespace, id)
                .map(
                    s -> {
                      if (s.status() == ScheduleStatus.ACTIVE) {
                        return new Changed(s, Cancellation.NONE);
                      }
                      Instant next = s.fireTimes().firstFrom(now).orElse(null);
                      Schedule resumed =
                          h.createQuery(sql("resume"))
                              .bind("id", id)
                              .bind("nextFireAt", next)
                              .bind("planAt", next == null ? null : now)
                              .bind("now", now)
                              .map(ScheduleRowMapper.PLAIN)
                              .one();
                      log.info(
                          "schedule resumed schedule={} namespace={} nextFireAt={}",
                          id,
                          namespace,
                          next);
                      return new Changed(resumed, Cancellation.NONE);
                    }));
  }

  /**
   * Deletes a schedule and cancels its jobs not started and due later; returns the schedule as it
   * was, with what the cancellation did (empty when there is no such schedule). Its other jobs
   * stay, still naming it.
   */
  public Optional<Changed> delete(String namespace, UUID id) {
    Instant now = now();
    return jdbi.inTransaction(
        h ->
            ScheduleRows.lock(h, namespace, id)
                .map(
                    s -> {
                      Cancellation cancelled = jobs.cancelFuture(h, id, now, "schedule deleted");
                      h.createUpdate(sql("delete")).bind("id", id).execute();
                      log.info(
                          "schedule deleted schedule={} namespace={} name={} cancelledJobs={}",
                          id,
                          namespace,
                          s.definition().name(),
                          cancelled.cancelled().size());
                      return new Changed(s, cancelled);
                    }));
  }
}
