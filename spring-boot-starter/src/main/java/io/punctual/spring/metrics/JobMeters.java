package io.punctual.spring.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.punctual.common.metrics.JobMetrics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded worker's job meters, tagged, in the application's Micrometer registry (and so in
 * Actuator, Prometheus included):
 *
 * <ul>
 *   <li>{@code punctual.jobs.queued} (gauge; tags {@code namespace}, {@code priority}, {@code
 *       when}: {@code due} or {@code future}): jobs in the Redis queue of the worker's namespaces;
 *   <li>{@code punctual.jobs.running} (gauge): attempts running on this worker now;
 *   <li>{@code punctual.jobs.started} (counter; {@code namespace}, {@code type}): attempts started;
 *   <li>{@code punctual.jobs.finished} (counter; {@code namespace}, {@code type}, {@code outcome}:
 *       {@code succeeded}, {@code failed}, {@code retried}, {@code timed_out}, {@code cancelled}):
 *       attempts ended;
 *   <li>{@code punctual.jobs.start.lag} (timer; {@code namespace}, {@code priority}): from when an
 *       attempt was due to its start.
 * </ul>
 *
 * They read the labelled metrics the worker keeps ({@link JobMetrics}, those {@code punctual
 * worker} shows on {@code /prometheus}); a series appears within a second of its first value (label
 * sets are looked for once a second), and reads lag its value by at most {@link
 * JobSeries#MAX_AGE_NANOS}.
 */
public final class JobMeters implements MeterBinder, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobMeters.class);

  private final JobSeries series;
  private final Gauges runningGauge;
  private final ScheduledFuture<?> discovering;

  /** Each registry bound, with the series already registered in it. */
  private final Map<MeterRegistry, Set<JobSeries.Key>> bound = new ConcurrentHashMap<>();

  private final ScheduledExecutorService discovery =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "punctual-job-meters");
            t.setDaemon(true);
            return t;
          });

  public JobMeters(WorkerMetricRegistry registry) {
    this.series = new JobSeries(JobMetrics.of(registry.registry()).registry());
    this.runningGauge = new Gauges(registry.registry());
    this.discovering = discovery.scheduleWithFixedDelay(this::discover, 1, 1, TimeUnit.SECONDS);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    bound.putIfAbsent(registry, ConcurrentHashMap.newKeySet());
    Gauge.builder("punctual.jobs.running", runningGauge, Gauges::running)
        .description("Attempts running on the embedded worker now")
        .register(registry);
    register(registry, series.read());
  }

  private void discover() {
    if (bound.isEmpty()) {
      return; // no Micrometer registry in the context: nothing to read for
    }
    try {
      JobSeries.Reading reading = series.read();
      bound.keySet().forEach(registry -> register(registry, reading));
    } catch (RuntimeException e) {
      // Keep looking next second (an exception would end the schedule).
      LOG.warn("could not register the worker's job meters: {}", e.toString());
    }
  }

  /** Registers every series of {@code reading} not registered in {@code registry} yet. */
  private void register(MeterRegistry registry, JobSeries.Reading reading) {
    Set<JobSeries.Key> known = bound.get(registry);
    List<JobSeries.Key> fresh = reading.keys().stream().filter(known::add).toList();
    for (JobSeries.Key k : only(fresh, JobSeries.STARTED)) {
      FunctionCounter.builder("punctual.jobs.started", series, s -> s.value(k))
          .tags(Tags.of(k.tags()))
          .description("Attempts the embedded worker started")
          .register(registry);
    }
    for (JobSeries.Key k : only(fresh, JobSeries.ENDED)) {
      FunctionCounter.builder("punctual.jobs.finished", series, s -> s.value(k))
          .tags(Tags.of(k.tags()))
          .description("Attempts that ended, by outcome")
          .register(registry);
    }
    for (JobSeries.Key k : only(fresh, JobSeries.START_LAG)) {
      FunctionTimer.builder(
              "punctual.jobs.start.lag",
              series,
              s -> (long) s.value(k),
              s -> s.sum(k),
              TimeUnit.SECONDS)
          .tags(Tags.of(k.tags()))
          .description("From when an attempt was due to when the worker started it")
          .register(registry);
    }
    queued(registry, only(fresh, JobSeries.DUE), "due");
    queued(registry, only(fresh, JobSeries.FUTURE), "future");
  }

  private static List<JobSeries.Key> only(List<JobSeries.Key> keys, String metric) {
    return keys.stream().filter(k -> k.metric().equals(metric)).toList();
  }

  private void queued(MeterRegistry registry, List<JobSeries.Key> keys, String when) {
    for (JobSeries.Key k : keys) {
      Gauge.builder("punctual.jobs.queued", series, s -> s.value(k))
          .tags(Tags.of(k.tags()).and("when", when))
          .description("Jobs in the Redis queue, due now or later")
          .register(registry);
    }
  }

  @Override
  public void close() {
    discovering.cancel(false);
    discovery.shutdownNow();
  }

  /** The worker's running gauge, found again at each read (a restarted worker registers anew). */
  private record Gauges(com.codahale.metrics.MetricRegistry dropwizard) {
    double running() {
      com.codahale.metrics.Gauge<?> g = dropwizard.getGauges().get("punctual.worker.running");
      return g != null && g.getValue() instanceof Number n ? n.doubleValue() : 0;
    }
  }
}
