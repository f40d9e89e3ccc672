package io.punctual.planner.plan;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.punctual.model.QueueEntry;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.OccurrenceWriter.Materialised;
import io.punctual.planner.plan.OccurrenceWriter.PlannedBatch;
import io.punctual.queue.ReadyQueue;
import io.punctual.schedule.DeclaredSchedule;
import io.punctual.schedule.store.ScheduleDefinitions;
import io.punctual.schedule.store.ScheduleDefinitions.Registered;
import io.punctual.schedule.store.ScheduleDefinitions.Registration;
import io.punctual.store.PartitionManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code planner} role: materialises the occurrences of every ACTIVE schedule as ordinary jobs,
 * ahead of time, exactly once.
 *
 * <p>A pass claims due schedules in batches ({@link OccurrenceWriter#planDue}: {@code FOR UPDATE
 * SKIP LOCKED} on the {@code plan_at} index), decides their occurrences ({@link
 * OccurrencePlanner}), and in the same transaction records each occurrence, inserts its job and
 * moves the schedule on. After the commit the jobs due within {@code queue.horizon} go into Redis
 * (later ones reach it through the promoter). Any number of planners may run: each batch is locked
 * by the one planner that claimed it and the others skip it, so they split the work with no leader
 * and plan nothing twice; the primary key of {@code schedule_occurrences} stands behind that.
 *
 * <p>Before each batch a planner beats in {@code planner_liveness} ({@link MisfireLine}): fire
 * times count as missed only when every planner was silent for longer than {@code
 * planner.misfireThreshold}, never because this or another planner is busy.
 *
 * <p>{@link #runOnce()} does one pass (what tests and {@code punctual planner --once} run); {@link
 * #start()} runs passes on a thread of its own, each as soon as a schedule is due and at least
 * every {@code planner.interval}.
 */
public final class Planner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Planner.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final Duration BUSY_WAIT = Duration.ofMillis(100);

  /** What one pass did. */
  public record Pass(
      int schedules,
      int jobs,
      int skipped,
      int duplicates,
      int misfires,
      int queued,
      boolean redisFailed) {}

  private final ScheduleDefinitions definitions;
  private final OccurrenceWriter occurrences;
  private final PartitionManager partitions;
  private final ReadyQueue queue;
  private final Duration queueHorizon;
  private final RateDebts rateDebts;
  private final PlannerSettings settings;
  private final OccurrencePlanner decider;
  private final MisfireLine misfireLine;
  private final Clock clock;
  private final String holder;
  private final List<DeclaredSchedule> declared;
  private volatile boolean registered;

  private final Meter planned;
  private final Meter skipped;
  private final Meter overQuota;
  private final Meter duplicates;
  private final Meter misfires;
  private final Histogram planLag;
  private final Timer passes;

  private volatile boolean running;
  private Thread thread;

  /**
   * @param stores where declared schedules are registered ({@code definitions}), due schedules
   *     claimed and their occurrences written ({@code occurrences}), this planner beats ({@code
   *     liveness}, see {@link MisfireLine}), the partitions of the jobs it inserts are created
   *     ahead of each batch ({@code partitions}), and the jobs due within {@code queueHorizon} go
   *     ({@code queue}; later ones reach Redis through the promoter)
   * @param holder this planner's name in logs and in {@code planner_liveness}
   * @param declared the schedules declared in configuration, registered on the first pass
   */
  public Planner(
      PlannerStores stores,
      Clock clock,
      PlannerSettings settings,
      MetricRegistry metrics,
      String holder,
      List<DeclaredSchedule> declared) {
    settings.validate();
    this.definitions = stores.definitions();
    this.occurrences = stores.occurrences();
    this.partitions = stores.partitions();
    this.queue = stores.queue();
    this.queueHorizon = stores.queueHorizon();
    this.rateDebts = stores.rateDebts();
    this.settings = settings;
    this.decider = new OccurrencePlanner(settings);
    this.clock = clock;
    this.holder = holder;
    this.misfireLine = new MisfireLine(stores.liveness(), settings.misfireThreshold, holder);
    this.declared = List.copyOf(declared);
    this.registered = declared.isEmpty();
    this.planned = metrics.meter("punctual.planner.occurrences.planned");
    this.skipped = metrics.meter("punctual.planner.occurrences.skipped");
    this.overQuota = metrics.meter("punctual.planner.occurrences.overQuota");
    this.duplicates = metrics.meter("punctual.planner.occurrences.duplicates");
    this.misfires = metrics.meter("punctual.planner.misfires");
    this.planLag = metrics.histogram("punctual.planner.planLagMs");
    this.passes = metrics.timer("punctual.planner.pass");
  }

  /**
   * Registers the declared schedules (first time only), then plans every due schedule, batch after
   * batch, until none is left due.
   */
  public Pass runOnce() {
    registerDeclared();
    try (Timer.Context ignored = passes.time()) {
      int claimed = 0;
      int jobs = 0;
      int skip = 0;
      int dup = 0;
      int mis = 0;
      int queued = 0;
      boolean redisFailed = false;
      while (true) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        // Before each batch: this planner is alive, and where missed fire times end.
        Instant missedBefore = misfireLine.missedBefore(now);
        ensurePartitions(now);
        PlannedBatch batch =
            occurrences.planDue(
                now,
                missedBefore,
                settings.batchSize,
                decider,
                now.minus(settings.occurrenceRetention));
        claimed += batch.claimed();
        jobs += batch.jobs().size();
        skip += batch.skipped();
        dup += batch.duplicates();
        mis += batch.misfires();
        record(batch, now);
        rateDebts.charge(batch.jobs());
        List<QueueEntry> soon = dueWithinHorizon(batch.jobs(), now);
        if (enqueue(soon)) {
          queued += soon.size();
        } else {
          redisFailed = true;
        }
        if (batch.claimed() < settings.batchSize) {
          break;
        }
      }
      if (jobs > 0 || skip > 0 || dup > 0) {
        log.info(
            "planner pass holder={} schedules={} jobs={} skipped={} duplicates={} misfires={}"
                + " queued={}",
            holder,
            claimed,
            jobs,
            skip,
            dup,
            mis,
            queued);
      }
      return new Pass(claimed, jobs, skip, dup, mis, queued, redisFailed);
    }
  }

  private void record(PlannedBatch batch, Instant now) {
    planned.mark(batch.jobs().size());
    skipped.mark(batch.skipped());
    overQuota.mark(batch.overQuota());
    duplicates.mark(batch.duplicates());
    misfires.mark(batch.misfires());
    for (Materialised m : batch.jobs()) {
      planLag.update(Math.max(0, Duration.between(m.fireAt(), now).toMillis()));
      if (log.isDebugEnabled()) {
        log.debug(
            "occurrence materialised schedule={} occurrence={} job={} runAt={}",
            m.scheduleId(),
            m.fireAt(),
            m.entry().id(),
            m.entry().runAt());
      }
    }
  }

  /** Jobs the planner may insert are due up to now + lookAhead: their days' partitions first. */
  private void ensurePartitions(Instant now) {
    Instant until = now.plus(settings.lookAhead);
    for (Instant day = now; day.isBefore(until); day = day.plus(Duration.ofDays(1))) {
      partitions.ensureCovers(day);
    }
    partitions.ensureCovers(until);
  }

  private List<QueueEntry> dueWithinHorizon(List<Materialised> jobs, Instant now) {
    Instant horizon = now.plus(queueHorizon);
    List<QueueEntry> out = new ArrayList<>(jobs.size());
    for (Materialised m : jobs) {
      if (!m.entry().runAt().isAfter(horizon)) {
        out.add(m.entry());
      }
    }
    return out;
  }

  /**
   * False when Redis did not take them: the jobs are safe in PostgreSQL and the reaper queues them.
   */
  private boolean enqueue(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return true;
    }
    try {
      queue.enqueue(entries);
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "redis enqueue failed, the reaper will queue these jobs jobs={} firstJob={} error={}",
          entries.size(),
          entries.get(0).id(),
          e.toString());
      return false;
    }
  }

  private void registerDeclared() {
    if (registered) {
      return;
    }
    for (DeclaredSchedule d : declared) {
      Registered r = definitions.register(d.namespace(), d.definition());
      if (r.registration() != Registration.UNCHANGED) {
        log.info(
            "declared schedule {} namespace={} initIdentifier={} schedule={}",
            r.registration().name().toLowerCase(java.util.Locale.ROOT),
            d.namespace(),
            d.definition().initIdentifier(),
            r.schedule().id());
      }
      for (QueueEntry e : r.cancelled()) {
        try {
          queue.remove(e.namespace(), e.priority(), e.id());
        } catch (RuntimeException ex) {
          log.debug("redis remove failed job={}", e.id(), ex);
        }
      }
      try {
        queue.enqueue(r.released());
      } catch (RuntimeException ex) {
        log.debug("redis enqueue of released jobs failed; the reaper repairs it", ex);
      }
    }
    registered = true;
  }

  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    running = true;
    thread = Thread.ofPlatform().daemon().name("punctual-planner").start(this::loop);
    log.info(
        "planner started holder={} interval={} lookAhead={} batchSize={}",
        holder,
        settings.interval,
        settings.lookAhead,
        settings.batchSize);
  }

  private void loop() {
    int failures = 0;
    while (running) {
      Duration wait;
      try {
        Pass pass = runOnce();
        failures = 0;
        wait = untilNextPass(pass);
      } catch (RuntimeException e) {
        failures++;
        wait = backoff(failures);
        log.warn("planner pass failed holder={} retryIn={}: {}", holder, wait, String.valueOf(e));
        log.debug("planner pass failure", e);
      }
      if (running && wait.isPositive()) {
        LockSupport.parkNanos(this, wait.toNanos());
      }
    }
  }

  /** Until the earliest schedule is due, at most {@code interval}. */
  private Duration untilNextPass(Pass pass) {
    Optional<Instant> next = occurrences.nextPlanAt();
    if (next.isEmpty()) {
      return settings.interval;
    }
    Duration until = Duration.between(clock.instant(), next.get());
    if (!until.isPositive()) {
      // Due but not claimed: another planner holds it right now.
      return pass.schedules() == 0 ? min(BUSY_WAIT, settings.interval) : Duration.ZERO;
    }
    return min(until, settings.interval);
  }

  private Duration backoff(int failures) {
    Duration d = settings.interval.multipliedBy(1L << Math.min(failures, 5));
    return min(d, MAX_BACKOFF);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public synchronized void close() {
    if (thread != null) {
      running = false;
      LockSupport.unpark(thread);
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      thread = null;
      log.info("planner stopped holder={}", holder);
    }
    rateDebts.close();
  }
}
