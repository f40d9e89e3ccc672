package io.punctual.planner.schedule;

import io.punctual.common.job.Job;
import io.punctual.common.job.JobId;
import io.punctual.common.job.JobLinks;
import io.punctual.common.job.JobState;
import io.punctual.common.job.NewJob;
import io.punctual.common.json.Json;
import io.punctual.common.queue.QueueEntry;
import io.punctual.common.sql.SqlFiles;
import io.punctual.common.store.JobQueries;
import io.punctual.common.store.JobQueries.Page;
import io.punctual.common.store.JobRowMapper;
import io.punctual.common.store.JobSubmissions;
import io.punctual.common.store.JobTransitions;
import io.punctual.planner.expression.WireNames;
import io.punctual.planner.plan.Occurrence;
import io.punctual.planner.plan.OccurrencePlanner;
import io.punctual.planner.plan.SchedulePlan;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every read and write of schedules, each change one transaction: a schedule's row, the jobs it
 * cancels or creates, and its occurrence records change together or not at all. The SQL is in
 * {@code ScheduleStore/*.sql} beside this class.
 *
 * <p>Cancelling a schedule's future occurrences (a change, a pause, a deletion) is the job
 * transition CANCEL_PENDING, guarded by status like every transition, applied to its jobs that have
 * not started and are due after now. The caller removes the returned entries from Redis after the
 * commit.
 */
public final class ScheduleStore {
  private static final Logger log = LoggerFactory.getLogger(ScheduleStore.class);
  private static final SqlFiles SQL = new SqlFiles(ScheduleStore.class);

  private final Jdbi jdbi;
  private final JobSubmissions jobs;
  private final JobQueries queries;
  private final Clock clock;

  public ScheduleStore(Jdbi jdbi, JobSubmissions jobs, JobQueries queries, Clock clock) {
    this.jdbi = jdbi;
    this.jobs = jobs;
    this.queries = queries;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** Milliseconds are the precision of every stored time (job ids, Redis scores). */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /** A schedule changed by a call, and the jobs that change cancelled (to take out of Redis). */
  /**
   * A schedule after a change, the jobs the change cancelled (to take out of Redis), and the jobs
   * that waited for those and became PENDING (to put into Redis).
   */
  public record Changed(Schedule schedule, List<QueueEntry> cancelled, List<QueueEntry> released) {
    Changed(Schedule schedule, Cancellation c) {
      this(schedule, c.cancelled(), c.released());
    }
  }

  /** What cancelling a schedule's future jobs did: see {@link Changed}. */
  private record Cancellation(List<QueueEntry> cancelled, List<QueueEntry> released) {
    static final Cancellation NONE = new Cancellation(List.of(), List.of());
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
    return translateNameTaken(
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
    return translateNameTaken(
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

  private Optional<Schedule> insert(
      Handle h, UUID id, String namespace, ScheduleDefinition definition, Instant now) {
    Instant next = definition.fireTimes(now).firstFrom(now).orElse(null);
    return bindDefinition(h.createQuery(sql("insert")), definition)
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
    return bindDefinition(h.createQuery(sql("sameDefinition")), definition)
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
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("find"))
                .bind("id", id)
                .bind("namespace", namespace)
                .bind("now", now)
                .map(ScheduleRowMapper.WITH_LAST_FIRED)
                .findOne());
  }

  /** A page of schedules by name and the name to continue after (null on the last page). */
  public record Listing(List<Schedule> items, String nextAfterName) {}

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
    return translateNameTaken(
        namespace,
        definition.name(),
        () ->
            jdbi.inTransaction(
                h -> lock(h, namespace, id).map(s -> redefine(h, s, definition, now))));
  }

  private Changed redefine(
      Handle h, Schedule schedule, ScheduleDefinition definition, Instant now) {
    Cancellation cancelled = cancelFutureJobs(h, schedule.id(), now, "schedule changed");
    Instant next = definition.fireTimes(schedule.createdAt()).firstFrom(now).orElse(null);
    Schedule updated =
        bindDefinition(h.createQuery(sql("redefine")), definition)
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
            lock(h, namespace, id)
                .map(
                    s -> {
                      Cancellation cancelled = cancelFutureJobs(h, id, now, "schedule paused");
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
            lock(h, namespace, id)
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
            lock(h, namespace, id)
                .map(
                    s -> {
                      Cancellation cancelled = cancelFutureJobs(h, id, now, "schedule deleted");
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

  /**
   * One run of the schedule now, whatever its status, outside its fire times (no occurrence).
   * Overlap {@code skip} counts it as the schedule's latest run. Empty when there is no such
   * schedule.
   */
  public Optional<Job> trigger(String namespace, UUID id) {
    Optional<Schedule> before = find(namespace, id);
    if (before.isEmpty()) {
      return Optional.empty();
    }
    Instant now = now();
    JobLinks links = JobLinks.NONE.withScheduleId(id);
    // The id (and its partition) before the transaction: partition DDL never runs inside one.
    UUID jobId = jobs.newId(before.get().definition().job().toNewJob(namespace, now, links), now);
    Optional<UUID> created =
        jdbi.inTransaction(
            h ->
                lock(h, namespace, id)
                    .map(
                        s -> {
                          NewJob job = s.definition().job().toNewJob(namespace, now, links);
                          jobs.insertPending(h, List.of(job), List.of(jobId), now);
                          h.createUpdate(sql("recordTrigger"))
                              .bind("id", id)
                              .bind("jobId", jobId)
                              .execute();
                          return jobId;
                        }));
    created.ifPresent(
        j -> log.info("schedule triggered schedule={} namespace={} job={}", id, namespace, j));
    return created.flatMap(j -> queries.find(namespace, j));
  }

  /** A page of a schedule's jobs, newest scheduled first (the shape of {@code GET /jobs}). */
  public Page<Job> jobs(
      String namespace, UUID scheduleId, JobState status, UUID cursor, int limit) {
    List<Job> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(sql("jobs"))
                    .bind("scheduleId", scheduleId)
                    .bind("namespace", namespace)
                    .bind("status", status == null ? null : status.name())
                    .bind("cursor", cursor)
                    .bind("cursorTime", cursor == null ? null : JobId.scheduledAt(cursor))
                    .bind("limit", limit + 1)
                    .map(new JobRowMapper())
                    .list());
    if (rows.size() > limit) {
      List<Job> page = List.copyOf(rows.subList(0, limit));
      return new Page<>(page, page.get(limit - 1).id());
    }
    return new Page<>(rows, null);
  }

  private static Optional<Schedule> lock(Handle h, String namespace, UUID id) {
    return h.createQuery(sql("lock"))
        .bind("id", id)
        .bind("namespace", namespace)
        .map(ScheduleRowMapper.PLAIN)
        .findOne();
  }

  /**
   * CANCEL_PENDING for the schedule's future jobs, and, in the same transaction, the judgement of
   * any job that waited for one of them (like every step that ends jobs).
   */
  private Cancellation cancelFutureJobs(Handle h, UUID scheduleId, Instant now, String why) {
    JobTransitions.CancelledFutureJobs done =
        JobTransitions.cancelScheduleFutureJobs(h, scheduleId, "cancelled: " + why, now);
    List<Long> fireMs = new ArrayList<>();
    List<UUID> ids = new ArrayList<>();
    for (JobTransitions.CancelledFutureJob c : done.cancelled()) {
      if (c.occurrenceAt() != null) {
        fireMs.add(c.occurrenceAt().toEpochMilli());
        ids.add(c.entry().id());
      }
    }
    if (!ids.isEmpty()) {
      h.createUpdate(sql("forgetOccurrences"))
          .bind("scheduleId", scheduleId)
          .bind("fireMs", fireMs.toArray(Long[]::new))
          .bind("jobIds", ids.toArray(UUID[]::new))
          .execute();
    }
    if (done.cancelled().isEmpty()) {
      return Cancellation.NONE;
    }
    return new Cancellation(done.entries(), done.released());
  }

  // --- the planner's side

  /** A job the planner materialised, and where it goes in Redis. */
  public record Materialised(UUID scheduleId, Instant fireAt, QueueEntry entry) {}

  /**
   * What one planning transaction did.
   *
   * @param claimed schedules claimed (and planned)
   * @param jobs jobs materialised, in order
   * @param skipped fire times recorded without a job (overlap skip, missed)
   * @param duplicates fire times found already on record (and therefore not run again)
   * @param misfires schedules whose missed fire times were handled by their misfire policy
   */
  public record PlannedBatch(
      int claimed, List<Materialised> jobs, int skipped, int duplicates, int misfires) {
    static final PlannedBatch EMPTY = new PlannedBatch(0, List.of(), 0, 0, 0);
  }

  /**
   * Claims up to {@code limit} ACTIVE schedules due for planning (skipping any another planner
   * holds), decides their occurrences with {@code planner} (fire times before {@code missedBefore}
   * were missed), and in the same transaction records the occurrences, inserts their jobs, moves
   * each schedule on and prunes its occurrence records older than {@code pruneBefore}. The
   * partitions of jobs due up to {@code now} plus the planner's look-ahead must exist already (see
   * {@link io.punctual.common.store.PartitionManager}).
   */
  public PlannedBatch planDue(
      Instant now,
      Instant missedBefore,
      int limit,
      OccurrencePlanner planner,
      Instant pruneBefore) {
    return jdbi.inTransaction(
        h -> {
          List<Schedule> due =
              h.createQuery(sql("claimDue"))
                  .bind("now", now)
                  .bind("limit", limit)
                  .map(ScheduleRowMapper.PLAIN)
                  .list();
          if (due.isEmpty()) {
            return PlannedBatch.EMPTY;
          }
          Set<UUID> running = runningLastJobs(h, due);
          List<SchedulePlan> plans = new ArrayList<>(due.size());
          for (Schedule s : due) {
            boolean previousRunActive = s.lastJobId() != null && running.contains(s.lastJobId());
            plans.add(planOne(planner, s, now, missedBefore, previousRunActive));
          }
          return write(h, due, plans, now, missedBefore, pruneBefore);
        });
  }

  private static SchedulePlan planOne(
      OccurrencePlanner planner,
      Schedule s,
      Instant now,
      Instant missedBefore,
      boolean previousRunActive) {
    try {
      return planner.plan(s, now, missedBefore, previousRunActive);
    } catch (RuntimeException e) {
      // One broken schedule must not stop the others: look at it again in a minute.
      log.error("schedule cannot be planned schedule={} namespace={}", s.id(), s.namespace(), e);
      return new SchedulePlan(s.id(), List.of(), s.nextFireAt(), now.plusSeconds(60), false);
    }
  }

  /** The latest jobs of overlap-skip schedules that are not final yet. */
  private static Set<UUID> runningLastJobs(Handle h, List<Schedule> due) {
    List<UUID> ids = new ArrayList<>();
    for (Schedule s : due) {
      if (s.definition().overlap() == OverlapPolicy.SKIP && s.lastJobId() != null) {
        ids.add(s.lastJobId());
      }
    }
    if (ids.isEmpty()) {
      return Set.of();
    }
    Instant min = Instant.MAX;
    Instant max = Instant.MIN;
    for (UUID id : ids) {
      Instant at = JobId.scheduledAt(id);
      min = at.isBefore(min) ? at : min;
      max = at.isAfter(max) ? at : max;
    }
    Set<UUID> running = new HashSet<>();
    h.createQuery(sql("jobStatuses"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bind("minScheduled", min)
        .bind("maxScheduled", max)
        .map(
            (rs, ctx) -> {
              if (!JobState.valueOf(rs.getString("status")).isTerminal()) {
                running.add(rs.getObject("id", UUID.class));
              }
              return null;
            })
        .list();
    return running;
  }

  private record Key(UUID scheduleId, long fireMs) {}

  private PlannedBatch write(
      Handle h,
      List<Schedule> due,
      List<SchedulePlan> plans,
      Instant now,
      Instant missedBefore,
      Instant pruneBefore) {
    Map<UUID, Schedule> byId = new HashMap<>();
    for (Schedule s : due) {
      byId.put(s.id(), s);
    }
    // Every occurrence, with the id of its job chosen up front.
    List<UUID> scheduleIds = new ArrayList<>();
    List<Long> fireMs = new ArrayList<>();
    List<UUID> jobIds = new ArrayList<>();
    List<String> outcomes = new ArrayList<>();
    Map<Key, NewJob> newJobs = new HashMap<>();
    int misfires = 0;
    for (SchedulePlan plan : plans) {
      Schedule s = byId.get(plan.scheduleId());
      if (plan.misfire()) {
        misfires++;
        logMisfire(s, plan, missedBefore);
      }
      for (Occurrence o : plan.occurrences()) {
        UUID jobId = null;
        if (o.isJob()) {
          NewJob job =
              s.definition()
                  .job()
                  .toNewJob(
                      s.namespace(), o.runAt(), JobLinks.NONE.withOccurrence(s.id(), o.fireAt()));
          jobId = jobs.newId(job, now);
          newJobs.put(new Key(s.id(), o.fireAt().toEpochMilli()), job);
        }
        scheduleIds.add(s.id());
        fireMs.add(o.fireAt().toEpochMilli());
        jobIds.add(jobId);
        outcomes.add(o.outcome().stored());
      }
    }
    Set<Key> recorded = new HashSet<>();
    if (!scheduleIds.isEmpty()) {
      h.createQuery(sql("recordOccurrences"))
          .bind("scheduleIds", scheduleIds.toArray(UUID[]::new))
          .bind("fireMs", fireMs.toArray(Long[]::new))
          .bind("jobIds", jobIds.toArray(UUID[]::new))
          .bind("outcomes", outcomes.toArray(String[]::new))
          .bind("now", now)
          .map(
              (rs, ctx) ->
                  recorded.add(
                      new Key(
                          rs.getObject("schedule_id", UUID.class),
                          JobRowMapper.instant(rs, "fire_at").toEpochMilli())))
          .list();
    }
    // Jobs only for fire times recorded now.
    List<NewJob> toInsert = new ArrayList<>();
    List<UUID> toInsertIds = new ArrayList<>();
    List<Materialised> materialised = new ArrayList<>();
    Map<UUID, UUID> lastJob = new HashMap<>();
    int skipped = 0;
    int duplicates = 0;
    for (int i = 0; i < scheduleIds.size(); i++) {
      Key key = new Key(scheduleIds.get(i), fireMs.get(i));
      if (!recorded.contains(key)) {
        duplicates++;
        log.warn(
            "occurrence already on record, not materialised again schedule={} occurrence={}",
            key.scheduleId(),
            Instant.ofEpochMilli(key.fireMs()));
        continue;
      }
      NewJob job = newJobs.get(key);
      if (job == null) {
        skipped++;
        log.info(
            "occurrence not run schedule={} occurrence={} outcome={}",
            key.scheduleId(),
            Instant.ofEpochMilli(key.fireMs()),
            outcomes.get(i));
        continue;
      }
      UUID jobId = jobIds.get(i);
      toInsert.add(job);
      toInsertIds.add(jobId);
      lastJob.put(key.scheduleId(), jobId);
      materialised.add(
          new Materialised(
              key.scheduleId(),
              Instant.ofEpochMilli(key.fireMs()),
              new QueueEntry(jobId, job.namespace(), job.priority(), job.runAt())));
    }
    jobs.insertPending(h, toInsert, toInsertIds, now);
    advance(h, plans, lastJob);
    h.createUpdate(sql("pruneOccurrences"))
        .bind("ids", due.stream().map(Schedule::id).toArray(UUID[]::new))
        .bind("before", pruneBefore)
        .execute();
    return new PlannedBatch(due.size(), materialised, skipped, duplicates, misfires);
  }

  /**
   * One line per schedule whose missed fire times were handled, naming the whole span: every fire
   * time from {@code firstMissed} to before {@code missedBefore} was missed; {@code catchUpRuns} of
   * them run now (fire_once: 1, fire_all: up to the cap, skip: 0) and the first that does not is
   * the one recorded as missed.
   */
  private static void logMisfire(Schedule s, SchedulePlan plan, Instant missedBefore) {
    int catchUps = 0;
    Instant firstNotRun = null;
    for (Occurrence o : plan.occurrences()) {
      if (!o.fireAt().isBefore(missedBefore)) {
        break;
      }
      if (o.isJob()) {
        catchUps++;
      } else if (o.outcome() == Occurrence.Outcome.MISSED) {
        firstNotRun = o.fireAt();
      }
    }
    log.warn(
        "missed fire times schedule={} namespace={} misfire={} firstMissed={} missedBefore={}"
            + " catchUpRuns={} firstNotRun={}",
        s.id(),
        s.namespace(),
        WireNames.of(s.definition().misfire()),
        s.nextFireAt(),
        missedBefore,
        catchUps,
        firstNotRun);
  }

  private static void advance(Handle h, List<SchedulePlan> plans, Map<UUID, UUID> lastJob) {
    int n = plans.size();
    UUID[] ids = new UUID[n];
    Long[] nextMs = new Long[n];
    Long[] planMs = new Long[n];
    Long[] lastFireMs = new Long[n];
    UUID[] lastJobIds = new UUID[n];
    for (int i = 0; i < n; i++) {
      SchedulePlan p = plans.get(i);
      ids[i] = p.scheduleId();
      nextMs[i] = p.nextFireAt() == null ? null : p.nextFireAt().toEpochMilli();
      planMs[i] = p.planAt() == null ? null : p.planAt().toEpochMilli();
      List<Occurrence> os = p.occurrences();
      lastFireMs[i] = os.isEmpty() ? null : os.get(os.size() - 1).fireAt().toEpochMilli();
      lastJobIds[i] = lastJob.get(p.scheduleId());
    }
    h.createUpdate(sql("advance"))
        .bind("ids", ids)
        .bind("nextMs", nextMs)
        .bind("planMs", planMs)
        .bind("lastFireMs", lastFireMs)
        .bind("lastJobIds", lastJobIds)
        .execute();
  }

  /** When the earliest active schedule is due for planning (empty: none is). */
  public Optional<Instant> nextPlanAt() {
    return jdbi.withHandle(h -> h.createQuery(sql("nextPlanAt")).mapTo(Instant.class).findOne());
  }

  // --- helpers

  private static <S extends SqlStatement<S>> S bindDefinition(S statement, ScheduleDefinition d) {
    JobTemplate job = d.job();
    return statement
        .bind("name", d.name())
        .bind("initIdentifier", d.initIdentifier())
        .bind("cron", d.cron())
        .bind("everyMs", d.every() == null ? null : d.every().toMillis())
        .bind("timeZone", d.zone().getId())
        .bind("dstGap", WireNames.of(d.dst().gap()))
        .bind("dstOverlap", WireNames.of(d.dst().overlap()))
        .bind("startAt", d.startAt())
        .bind("endAt", d.endAt())
        .bind("misfire", WireNames.of(d.misfire()))
        .bind("overlap", WireNames.of(d.overlap()))
        .bind("type", job.type())
        .bind("payload", Json.write(job.payload()))
        .bind("priority", (short) job.priority().ordinal())
        .bind("maxAttempts", job.maxAttempts())
        .bind("backoff", Json.write(job.backoff()))
        .bind("timeoutMs", job.timeout() == null ? null : job.timeout().toMillis())
        .bind("tags", job.tags().toArray(String[]::new))
        .bind("callback", job.callback() == null ? null : Json.write(job.callback()));
  }

  private interface Work<T> {
    T run();
  }

  /** Runs {@code work}, turning a violation of the per-namespace name uniqueness into its error. */
  private static <T> T translateNameTaken(String namespace, String name, Work<T> work) {
    try {
      return work.run();
    } catch (UnableToExecuteStatementException e) {
      if (e.getCause() instanceof PSQLException p
          && p.getServerErrorMessage() != null
          && "schedules_name_key".equals(p.getServerErrorMessage().getConstraint())) {
        throw new ScheduleNameTakenException(namespace, name);
      }
      throw e;
    }
  }
}
