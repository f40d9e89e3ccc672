package io.punctual.reaper;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.common.loop.Loops;
import io.punctual.common.random.PerThreadRandom;
import io.punctual.queue.Promoter;
import io.punctual.queue.Stores;
import io.punctual.store.PayloadIndex;
import io.punctual.store.stats.StatsRollup;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code reaper} role: every repair that keeps an accepted job on its way to a final state.
 *
 * <ul>
 *   <li>{@link Promoter} (every {@code queue.promoterInterval}): moves jobs entering the horizon
 *       into Redis, and rebuilds the whole near-term queue at once when Redis lost its data;
 *   <li>{@link DeathWatch} (every {@code reaper.deathCheckInterval}, its own thread): the attempts
 *       of workers that stopped reporting alive, rescued within seconds;
 *   <li>{@link Rescuer}, {@link Reconciler} and {@link SlotReconciler} (every {@code
 *       reaper.interval}): lost attempts back to PENDING, Redis and PostgreSQL brought to agree,
 *       limit slots of attempts no longer running given back;
 *   <li>{@link PartitionJanitor} (every {@code reaper.partitionInterval}): partitions ahead,
 *       retention, the worker registry; and the optional payload index ({@link PayloadIndex});
 *   <li>{@link StatsRollup} (every {@code reaper.statsInterval}): the per-minute statistics.
 * </ul>
 *
 * Each repair is idempotent and guarded, so any number of reapers may run. {@link #runOnce()} does
 * one of each (what {@code punctual reaper --once} runs).
 */
public final class Reaper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Reaper.class);

  private final Stores stores;
  private final ReaperSettings settings;
  private final String holder;
  private final Promoter promoter;
  private final Rescuer rescuer;
  private final DeathWatch deathWatch;
  private final Reconciler reconciler;
  private final PartitionJanitor janitor;
  private final StatsRollup stats;
  private final PayloadIndex payloadIndex;
  private final SlotReconciler slots;
  private final Meter slotsRepaired;
  private final Meter rescued;
  private final Meter requeued;
  private final Meter removed;
  private final Meter promoted;
  private final Meter partitionsDropped;
  private ScheduledExecutorService executor;
  private ScheduledExecutorService watching;

  public Reaper(Stores stores, ReaperSettings settings, MetricRegistry metrics, String holder) {
    settings.validate();
    this.stores = stores;
    this.settings = settings;
    this.holder = holder;
    this.promoter = stores.promoter(holder);
    this.rescuer =
        new Rescuer(stores.clock(), rescueStores(stores), settings, PerThreadRandom.INSTANCE);
    this.deathWatch =
        new DeathWatch(
            stores.clock(), rescueStores(stores), stores.liveness(), rescuer, settings, metrics);
    this.reconciler = reconciler(stores, settings);
    this.slots =
        new SlotReconciler(
            stores.database().jdbi(), stores.redis(), stores.holds(), stores.limits());
    this.slotsRepaired = metrics.meter("punctual.reaper.limitSlotsRepaired");
    this.janitor =
        new PartitionJanitor(
            stores.clock(),
            stores.database().jdbi(),
            stores.partitions(),
            stores.workers(),
            settings);
    this.stats =
        new StatsRollup(
            stores.database().jdbi(),
            stores.clock(),
            settings.statsSettle,
            Duration.ofHours(1),
            settings.executionRetention);
    this.payloadIndex = new PayloadIndex(stores.database().jdbi());
    this.rescued = metrics.meter("punctual.reaper.rescued");
    this.requeued = metrics.meter("punctual.reaper.requeued");
    this.removed = metrics.meter("punctual.reaper.removedFromRedis");
    this.promoted = metrics.meter("punctual.reaper.promoted");
    this.partitionsDropped = metrics.meter("punctual.reaper.partitionsDropped");
    metrics.gauge("punctual.reaper.queueRebuilds", () -> (Gauge<Long>) promoter::rebuilds);
  }

  /** The reconciler over a process's stores, holding back what it puts back as they say. */
  static Reconciler reconciler(Stores stores, ReaperSettings settings) {
    return new Reconciler(
        stores.clock(),
        stores.queries(),
        stores.redis(),
        stores.keys(),
        settings,
        stores.queueSettings().recoveryHoldBack);
  }

  /** What a rescue reads and changes, of a process's stores. */
  public static RescueStores rescueStores(Stores stores) {
    return new RescueStores(
        stores.queries(),
        stores.transitions(),
        stores.redlock(),
        stores.queue(),
        stores.queueSettings(),
        stores.holds(),
        stores.heldClaims());
  }

  /**
   * A death watch over a process's stores, with a rescuer of its own (a dead worker's attempts are
   * rescued at once, so its random backoff is never drawn): for a process that watches deaths
   * without the rest of a reaper ({@link DeathWatchLoop}), and for tests.
   */
  public static DeathWatch deathWatch(
      Stores stores, ReaperSettings settings, MetricRegistry metrics) {
    RescueStores rescue = rescueStores(stores);
    return new DeathWatch(
        stores.clock(),
        rescue,
        stores.liveness(),
        new Rescuer(stores.clock(), rescue, settings, PerThreadRandom.INSTANCE),
        settings,
        metrics);
  }

  /** What one full pass did. */
  public record Pass(
      int promoted,
      long queueRebuilds,
      int rescued,
      Reconciler.Repairs repairs,
      PartitionJanitor.Upkeep upkeep,
      StatsRollup.Pass stats) {}

  /** One of everything, in order: partitions, promoter, rescue, reconciliation, statistics. */
  public Pass runOnce() {
    PartitionJanitor.Upkeep upkeep = upkeep();
    int p = promote();
    int r = watchDeaths() + rescue();
    Reconciler.Repairs repairs = reconcile();
    return new Pass(p, promoter.rebuilds(), r, repairs, upkeep, stats.runOnce());
  }

  public synchronized void start() {
    if (executor != null) {
      throw new IllegalStateException("already started");
    }
    executor =
        Executors.newScheduledThreadPool(
            2, Thread.ofPlatform().daemon().name("punctual-reaper").factory());
    // A thread of its own: a long repair or upkeep pass never delays noticing a dead worker.
    watching =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("punctual-death-watch").factory());
    every(watching, settings.deathCheckInterval, this::watchDeaths);
    every(stores.queueSettings().promoterInterval, this::promote);
    every(settings.interval, this::repair);
    every(settings.partitionInterval, this::upkeep);
    every(settings.statsInterval, stats::runOnce);
    log.info(
        "reaper started holder={} interval={} deathCheckInterval={} rescueAfter={}"
            + " reconcileAfter={}",
        holder,
        settings.interval,
        settings.deathCheckInterval,
        settings.rescueAfter,
        settings.reconcileAfter);
  }

  private void every(Duration period, Supplier<?> task) {
    every(executor, period, task);
  }

  private void every(ScheduledExecutorService on, Duration period, Supplier<?> task) {
    long nanos = period.toNanos();
    // The executor's shutdown cancels it; a failed run is logged below, so nothing reads the
    // future.
    ScheduledFuture<?> unused =
        on.scheduleWithFixedDelay(
            () -> {
              try {
                Object done = task.get(); // what a pass did is for runOnce()'s callers (tests)
                log.trace("reaper task done holder={}: {}", holder, done);
              } catch (RuntimeException e) {
                if (on.isShutdown()) {
                  // Interrupted by close() (shutdownNow) in the middle of a Redis or SQL call.
                  log.debug("reaper task stopped by close holder={}", holder, e);
                  return;
                }
                log.warn("reaper task failed holder={}: {}", holder, e.toString());
                log.debug("reaper task failure", e);
              }
            },
            0,
            nanos,
            TimeUnit.NANOSECONDS);
  }

  private int promote() {
    int n = promoter.runOnce();
    promoted.mark(n);
    return n;
  }

  private int watchDeaths() {
    int n = deathWatch.runOnce();
    rescued.mark(n);
    return n;
  }

  private int rescue() {
    int n = rescuer.runOnce();
    rescued.mark(n);
    return n;
  }

  private Reconciler.Repairs reconcile() {
    Reconciler.Repairs repairs = reconciler.runOnce();
    requeued.mark(repairs.enqueued());
    removed.mark(repairs.removed());
    try {
      slotsRepaired.mark(slots.runOnce().slotsFreed());
    } catch (RuntimeException e) {
      log.warn("limit slot reconciliation failed holder={}: {}", holder, e.toString());
    }
    return repairs;
  }

  private Object repair() {
    rescue();
    return reconcile();
  }

  private PartitionJanitor.Upkeep upkeep() {
    PartitionJanitor.Upkeep upkeep = janitor.runOnce();
    try {
      if (payloadIndex.ensure(settings.payloadIndex)) {
        log.info("payload index jobs_payload {}", settings.payloadIndex ? "built" : "dropped");
      }
    } catch (RuntimeException e) {
      log.warn("payload index upkeep failed: {}", e.toString());
    }
    partitionsDropped.mark(upkeep.partitionsDropped().size());
    return upkeep;
  }

  /**
   * Stops the loops, if started, and releases the promoter lease (also after {@link #runOnce()}
   * alone, as {@code reaper --once} does) so another reaper or worker takes over at once.
   */
  @Override
  public synchronized void close() {
    boolean started = executor != null;
    if (started) {
      Loops.stopNow(watching);
      Loops.stopNow(executor);
      executor = null;
      watching = null;
    }
    try {
      promoter.release();
    } catch (RuntimeException e) {
      log.debug("promoter lease release failed", e);
    }
    if (started) {
      log.info("reaper stopped holder={}", holder);
    }
  }
}
