package io.punctual.worker.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import io.punctual.common.metrics.JobMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The worker's Dropwizard metrics, all named {@code punctual.worker.*}, plus the queue size gauges
 * {@code punctual.queue.<namespace>.<priority>.size}. Meters are shared get-or-create, so several
 * workers in one registry add up; gauges are registered once and removed by {@link #close()}.
 */
public final class WorkerMetrics implements AutoCloseable {
  public static final String PREFIX = "punctual.worker.";

  public final Meter claimed;
  public final Meter succeeded;
  public final Meter failed;
  public final Meter retried;
  public final Meter timedOut;
  public final Meter cancelled;
  public final Meter staleRefused;
  public final Meter fenceRefused;

  /** Attempts handed back (transition HAND_BACK): still running at the end of a shutdown grace. */
  public final Meter handoffs;

  public final Timer execution;

  /** Renewals of this worker's entry in the live-workers set that failed (Redis unreachable). */
  public final Meter livenessFailures;

  /** Log lines of handlers dropped: too many waiting for a write, or a write that failed. */
  public final Meter logLinesDropped;

  public final Histogram claimBatch;

  /** The three steps of taking jobs: the Redis claim, the leases, PostgreSQL's confirmation. */
  public final Timer claimRedis;

  public final Timer claimLease;
  public final Timer claimConfirm;

  /** The labelled metrics (by namespace, type, outcome) shown on the Prometheus page. */
  public final JobMetrics jobs;

  private final MetricRegistry registry;
  private final List<String> gauges = new ArrayList<>();
  private final List<AutoCloseable> queueDepths = new ArrayList<>();

  public WorkerMetrics(MetricRegistry registry) {
    this.registry = registry;
    this.claimed = registry.meter(PREFIX + "claimed");
    this.succeeded = registry.meter(PREFIX + "succeeded");
    this.failed = registry.meter(PREFIX + "failed");
    this.retried = registry.meter(PREFIX + "retried");
    this.timedOut = registry.meter(PREFIX + "timedOut");
    this.cancelled = registry.meter(PREFIX + "cancelled");
    this.staleRefused = registry.meter(PREFIX + "staleRefused");
    this.fenceRefused = registry.meter(PREFIX + "fenceRefused");
    this.handoffs = registry.meter(PREFIX + "handoffs");
    this.execution = timer(registry, PREFIX + "execution");
    this.livenessFailures = registry.meter(PREFIX + "livenessFailures");
    this.logLinesDropped = registry.meter(PREFIX + "logLinesDropped");
    this.claimBatch = registry.histogram(PREFIX + "claimBatch", WorkerMetrics::reservoirHistogram);
    this.claimRedis = timer(registry, PREFIX + "claim.redis");
    this.claimLease = timer(registry, PREFIX + "claim.lease");
    this.claimConfirm = timer(registry, PREFIX + "claim.confirm");
    this.jobs = JobMetrics.of(registry);
  }

  /**
   * A timer whose reservoir is Dropwizard's lock-free variant of its default (the same
   * forward-decay sampling): {@code execution} is updated once per job on the handlers' threads,
   * where the default's read-write lock and skip list showed in the worker's profile.
   */
  private static Timer timer(MetricRegistry registry, String name) {
    return registry.timer(name, () -> new Timer(reservoir()));
  }

  private static Histogram reservoirHistogram() {
    return new Histogram(reservoir());
  }

  private static Reservoir reservoir() {
    return LockFreeExponentiallyDecayingReservoir.builder().build();
  }

  /**
   * Registers the running gauge and the queue size gauges of {@code depths}: Dropwizard's {@code
   * punctual.queue.<ns>.<priority>.size} and the labelled {@code punctual_queue_due_jobs} and
   * {@code punctual_queue_future_jobs}, all read from what {@link QueueDepths#runOnce()} last kept
   * (no Redis call on a scrape).
   */
  public void registerGauges(IntSupplier running, QueueDepths depths) {
    register(PREFIX + "running", (Gauge<Integer>) running::getAsInt);
    for (QueueDepths.Reading r : depths.readings()) {
      queueDepths.add(jobs.queueDepth(r.namespace(), r.priority(), r::due, r::future));
      register(
          "punctual.queue." + r.namespace() + "." + r.priority().wireName() + ".size",
          (Gauge<Long>) r::size);
    }
  }

  /**
   * Registers {@code punctual.worker.queueRebuilds}: how many times this worker's promoter found
   * the Redis queue lost (FLUSHALL, a restart without persistence, a failover) and rebuilt it.
   */
  public void registerQueueRebuilds(LongSupplier rebuilds) {
    register(PREFIX + "queueRebuilds", (Gauge<Long>) rebuilds::getAsLong);
  }

  /**
   * Registers {@code punctual.worker.lockNodesWaiting}: how many Redlock lock nodes sat out their
   * restart delay ({@code redis.leaseNodeRestartDelay}) at this worker's last lease or renewal.
   */
  public void registerLockNodesWaiting(IntSupplier waiting) {
    register(PREFIX + "lockNodesWaiting", (Gauge<Integer>) waiting::getAsInt);
  }

  private void register(String name, Gauge<?> gauge) {
    var existing = registry.getGauges((n, m) -> n.equals(name));
    if (existing.isEmpty()) {
      registry.register(name, gauge);
      gauges.add(name);
    }
  }

  @Override
  public void close() {
    for (String name : gauges) {
      registry.remove(name);
    }
    gauges.clear();
    for (AutoCloseable depth : queueDepths) {
      try {
        depth.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    queueDepths.clear();
  }
}
