package io.punctual.planner.plan;

import io.punctual.model.JobId;
import io.punctual.model.JobLinks;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.expression.WireNames;
import io.punctual.schedule.store.ScheduleJobs;
import io.punctual.schedule.store.ScheduleRowMapper;
import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner's writes: claims the schedules due for planning and, in one transaction per batch,
 * records their occurrences, inserts their jobs (through {@link ScheduleJobs#insert}), moves each
 * schedule on and prunes its old occurrence records. The SQL is in {@code OccurrenceWriter/*.sql}
 * beside this class.
 */
public final class OccurrenceWriter {
  private static final Logger log = LoggerFactory.getLogger(OccurrenceWriter.class);
  private static final SqlFiles SQL = new SqlFiles(OccurrenceWriter.class);

  private final Jdbi jdbi;
  private final ScheduleJobs jobs;

  public OccurrenceWriter(Jdbi jdbi, ScheduleJobs jobs) {
    this.jdbi = jdbi;
    this.jobs = jobs;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** A job the planner materialised, and where it goes in Redis. */
  public record Materialised(UUID scheduleId, Instant fireAt, QueueEntry entry) {}

  /**
   * What one planning transaction did.
   *
   * @param claimed schedules claimed (and planned)
   * @param jobs jobs materialised, in order
   * @param skipped fire times recorded without a job (overlap skip, missed, over quota)
   * @param overQuota of those, the fire times skipped because their namespace held its maxPending
   * @param duplicates fire times found already on record (and therefore not run again)
   * @param misfires schedules whose missed fire times were handled by their misfire policy
   */
  public record PlannedBatch(
      int claimed,
      List<Materialised> jobs,
      int skipped,
      int overQuota,
      int duplicates,
      int misfires) {
    static final PlannedBatch EMPTY = new PlannedBatch(0, List.of(), 0, 0, 0, 0);
  }

  /**
   * Claims up to {@code limit} ACTIVE schedules due for planning (skipping any another planner
   * holds), decides their occurrences with {@code planner} (fire times before {@code missedBefore}
   * were missed), and in the same transaction records the occurrences, inserts their jobs, moves
   * each schedule on and prunes its occurrence records older than {@code pruneBefore}. The
   * partitions of jobs due up to {@code now} plus the planner's look-ahead must exist already (see
   * {@link io.punctual.store.PartitionManager}).
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
    Map<String, Long> room = pendingRoom(h, due);
    int misfires = 0;
    int overQuota = 0;
    for (SchedulePlan plan : plans) {
      Schedule s = byId.get(plan.scheduleId());
      if (plan.misfire()) {
        misfires++;
        logMisfire(s, plan, missedBefore);
      }
      for (Occurrence planned : plan.occurrences()) {
        Occurrence o = planned;
        if (o.isJob() && !takeRoom(room, s.namespace())) {
          o = Occurrence.skipped(o.fireAt(), Occurrence.Outcome.SKIPPED_QUOTA);
          overQuota++;
        }
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
                          Columns.instant(rs, "fire_at").toEpochMilli())))
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
    jobs.insert(h, toInsert, toInsertIds, now);
    advance(h, plans, lastJob);
    h.createUpdate(sql("pruneOccurrences"))
        .bind("ids", due.stream().map(Schedule::id).toArray(UUID[]::new))
        .bind("before", pruneBefore)
        .execute();
    return new PlannedBatch(due.size(), materialised, skipped, overQuota, duplicates, misfires);
  }

  /**
   * The room under quota.maxPending of the due schedules' namespaces that have one (see {@code
   * pendingRoom.sql}); a namespace not in the map has no such limit. Schedules count against the
   * quota like submits: a fire time that finds its namespace full is recorded as {@code
   * skipped_quota} instead of adding a job (a catch-up that would fill the namespace is cut there).
   */
  private static Map<String, Long> pendingRoom(Handle h, List<Schedule> due) {
    String[] names = due.stream().map(Schedule::namespace).distinct().toArray(String[]::new);
    Map<String, Long> room = new HashMap<>();
    h.createQuery(sql("pendingRoom"))
        .bind("names", names)
        .map((rs, ctx) -> room.put(rs.getString("name"), rs.getLong("room")))
        .list();
    return room;
  }

  /** Takes one job's room in {@code namespace}; false when it has none left. */
  private static boolean takeRoom(Map<String, Long> room, String namespace) {
    Long left = room.get(namespace);
    if (left == null) {
      return true;
    }
    if (left <= 0) {
      return false;
    }
    room.put(namespace, left - 1);
    return true;
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
}
