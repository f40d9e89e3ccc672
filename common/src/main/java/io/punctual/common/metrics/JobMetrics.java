package io.punctual.common.metrics;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.punctual.model.Priority;
import java.time.Duration;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The labelled job metrics (by namespace, type, priority, outcome), kept in a Prometheus registry
 * since Dropwizard metrics have no labels. One instance belongs to each Dropwizard {@link
 * MetricRegistry} (kept beside it, not in it: a metric of an unknown type in the registry breaks
 * its listeners, such as Dropwizard's JMX reporter), so every part of a role that gets the registry
 * records into the same place without a new constructor argument. {@link PrometheusExposition} adds
 * the Dropwizard metrics and the JVM's to the same Prometheus registry for the admin port's {@code
 * /prometheus}.
 */
public final class JobMetrics {
  /** The holder of each Dropwizard registry; weak, so a registry thrown away takes its holder. */
  private static final Map<MetricRegistry, JobMetrics> HOLDERS = new WeakHashMap<>();

  /** Seconds: 5 ms to 10 minutes. */
  private static final double[] LAG_BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600
  };

  private static final double[] DURATION_BUCKETS = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900
  };

  /** Seconds: 0.5 s to 10 minutes. */
  private static final double[] RESCUE_BUCKETS = {
    0.5, 1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 30, 60, 120, 600
  };

  /** Seconds: 1 ms to 30 s. */
  private static final double[] CANCEL_BUCKETS = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final LabelCap namespaces;
  private final LabelCap types;
  private final Counter submitted;
  private final Counter started;
  private final Counter ended;
  private final Counter claims;
  private final Counter leasesLost;
  private final Histogram startLag;
  private final Histogram handlerDuration;
  private final Histogram deathToRescue;
  private final Histogram cancelToInterrupt;
  private final Map<QueueKey, QueueDepth> queues = new ConcurrentHashMap<>();

  /**
   * Whether {@link PrometheusExposition} has added the bridge and JVM metrics (under this lock).
   */
  boolean exposed;

  private JobMetrics(MetricLabels labels) {
    this.namespaces = new LabelCap(labels.maxNamespaces());
    this.types = new LabelCap(labels.maxTypes());
    this.submitted =
        Counter.builder()
            .name("punctual_jobs_submitted")
            .help("Jobs accepted by the API")
            .labelNames("namespace", "type")
            .register(registry);
    this.started =
        Counter.builder()
            .name("punctual_jobs_started")
            .help("Attempts a worker started running")
            .labelNames("namespace", "type")
            .register(registry);
    this.ended =
        Counter.builder()
            .name("punctual_jobs_ended")
            .help(
                "Attempts that ended, by outcome: succeeded, failed, retried, timed_out, cancelled")
            .labelNames("namespace", "type", "outcome")
            .register(registry);
    this.claims =
        Counter.builder()
            .name("punctual_worker_claims")
            .help("Jobs claimed by workers")
            .labelNames("namespace")
            .register(registry);
    this.leasesLost =
        Counter.builder()
            .name("punctual_worker_leases_lost")
            .help("Running attempts whose lease was gone and could not be taken back")
            .register(registry);
    this.startLag =
        Histogram.builder()
            .name("punctual_job_start_lag_seconds")
            .help("From when an attempt was due to when a worker started it")
            .labelNames("namespace", "priority")
            .classicOnly()
            .classicUpperBounds(LAG_BUCKETS)
            .register(registry);
    this.handlerDuration =
        Histogram.builder()
            .name("punctual_job_handler_duration_seconds")
            .help("How long handlers ran, per attempt")
            .labelNames("namespace", "type")
            .classicOnly()
            .classicUpperBounds(DURATION_BUCKETS)
            .register(registry);
    this.deathToRescue =
        Histogram.builder()
            .name("punctual_worker_death_to_rescue_seconds")
            .help(
                "From a dead worker's last report alive to the rescue of each of its attempts"
                    + " (recorded by the process that rescued it)")
            .classicOnly()
            .classicUpperBounds(RESCUE_BUCKETS)
            .register(registry);
    this.cancelToInterrupt =
        Histogram.builder()
            .name("punctual_cancel_to_interrupt_seconds")
            .help("From a running job's cancel to the interrupt of its handler on its worker")
            .classicOnly()
            .classicUpperBounds(CANCEL_BUCKETS)
            .register(registry);
    GaugeWithCallback.builder()
        .name("punctual_queue_due_jobs")
        .help("Jobs in the Redis queue that are due now (what autoscaling should follow)")
        .labelNames("namespace", "priority")
        .callback(
            cb ->
                queues.forEach((k, q) -> cb.call(q.due(), k.namespace(), k.priority().wireName())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("punctual_queue_future_jobs")
        .help("Jobs in the Redis queue that are due later (within the promotion horizon)")
        .labelNames("namespace", "priority")
        .callback(
            cb ->
                queues.forEach(
                    (k, q) -> cb.call(q.future(), k.namespace(), k.priority().wireName())))
        .register(registry);
  }

  /** The holder in {@code metrics}, made with default label caps if there is none yet. */
  public static JobMetrics of(MetricRegistry metrics) {
    return install(metrics, MetricLabels.DEFAULTS);
  }

  /**
   * The holder in {@code metrics}, made with {@code labels} if there is none yet (a role calls this
   * before its parts record anything, so its configured caps apply).
   */
  public static JobMetrics install(MetricRegistry metrics, MetricLabels labels) {
    synchronized (HOLDERS) {
      return HOLDERS.computeIfAbsent(metrics, m -> new JobMetrics(labels));
    }
  }

  /** The Prometheus registry these metrics live in. */
  public PrometheusRegistry registry() {
    return registry;
  }

  public void submitted(String namespace, String type, int count) {
    submitted.labelValues(namespaces.label(namespace), types.label(type)).inc(count);
  }

  public void started(String namespace, String type, Priority priority, Duration lag) {
    String ns = namespaces.label(namespace);
    started.labelValues(ns, types.label(type)).inc();
    startLag
        .labelValues(ns, priority.wireName())
        .observe(Math.max(0, lag.toNanos()) / 1_000_000_000.0);
  }

  public void ended(String namespace, String type, String outcome) {
    ended.labelValues(namespaces.label(namespace), types.label(type), outcome).inc();
  }

  public void handlerRan(String namespace, String type, long nanos) {
    handlerDuration
        .labelValues(namespaces.label(namespace), types.label(type))
        .observe(nanos / 1_000_000_000.0);
  }

  public void claimed(String namespace, int count) {
    claims.labelValues(namespaces.label(namespace)).inc(count);
  }

  /** An attempt rescued {@code sinceDeath} after its worker's last report alive. */
  public void rescuedAfterDeath(Duration sinceDeath) {
    deathToRescue.observe(Math.max(0, sinceDeath.toNanos()) / 1_000_000_000.0);
  }

  /** A handler interrupted {@code sinceCancel} after its job's cancel. */
  public void interruptedAfterCancel(Duration sinceCancel) {
    cancelToInterrupt.observe(Math.max(0, sinceCancel.toNanos()) / 1_000_000_000.0);
  }

  public void leasesLost(int count) {
    leasesLost.inc(count);
  }

  /**
   * Reports the queue depth of one namespace and priority at each scrape, until the returned handle
   * is closed. The suppliers should be cheap (cache what they read). When two workers of one
   * process serve the same namespace, the first one's reading is shown.
   */
  public AutoCloseable queueDepth(
      String namespace, Priority priority, LongSupplier due, LongSupplier future) {
    QueueKey key = new QueueKey(namespaces.label(namespace), priority);
    QueueDepth depth = new QueueDepth(due, future);
    if (queues.putIfAbsent(key, depth) != null) {
      return () -> {};
    }
    return () -> queues.remove(key, depth);
  }

  private record QueueKey(String namespace, Priority priority) {}

  private record QueueDepth(LongSupplier dueNow, LongSupplier later) {
    double due() {
      return dueNow.getAsLong();
    }

    double future() {
      return later.getAsLong();
    }
  }
}
