package io.punctual.spring.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The labelled job metrics of a worker's Prometheus registry, read as numbers per series: a counter
 * or gauge's value, a histogram's count and sum. A reading is kept for {@link #MAX_AGE_NANOS}, so a
 * scrape of many series reads the registry once.
 */
final class JobSeries {
  static final String STARTED = "punctual_jobs_started";
  static final String ENDED = "punctual_jobs_ended";
  static final String START_LAG = "punctual_job_start_lag_seconds";
  static final String DUE = "punctual_queue_due_jobs";
  static final String FUTURE = "punctual_queue_future_jobs";
  static final long MAX_AGE_NANOS = 200_000_000L;

  private static final Set<String> NAMES = Set.of(STARTED, ENDED, START_LAG, DUE, FUTURE);

  private final PrometheusRegistry registry;
  private Reading last;
  private long readAt;

  JobSeries(PrometheusRegistry registry) {
    this.registry = registry;
  }

  /** One series: a metric and its labels ({@code name=value} pairs, in order). */
  record Key(String metric, List<String> labels) {
    /** The labels as Micrometer tags. */
    String[] tags() {
      List<String> tags = new ArrayList<>();
      for (String pair : labels) {
        int eq = pair.indexOf('=');
        tags.add(pair.substring(0, eq));
        tags.add(pair.substring(eq + 1));
      }
      return tags.toArray(String[]::new);
    }
  }

  /** The value (a histogram's count) and sum of each series at one moment. */
  record Reading(Map<Key, double[]> values) {
    Set<Key> keys() {
      return values.keySet();
    }
  }

  /** A reading no older than {@link #MAX_AGE_NANOS}. */
  synchronized Reading read() {
    long now = System.nanoTime();
    if (last == null || now - readAt > MAX_AGE_NANOS) {
      last = scrape();
      readAt = now;
    }
    return last;
  }

  double value(Key key) {
    double[] v = read().values().get(key);
    return v == null ? 0 : v[0];
  }

  double sum(Key key) {
    double[] v = read().values().get(key);
    return v == null ? 0 : v[1];
  }

  private Reading scrape() {
    Map<Key, double[]> values = new HashMap<>();
    for (MetricSnapshot snapshot : registry.scrape()) {
      String metric = snapshot.getMetadata().getName();
      if (!NAMES.contains(metric)) {
        continue;
      }
      for (DataPointSnapshot point : snapshot.getDataPoints()) {
        List<String> labels = new ArrayList<>();
        for (Label l : point.getLabels()) {
          labels.add(l.getName() + "=" + l.getValue());
        }
        values.put(new Key(metric, List.copyOf(labels)), numbers(point));
      }
    }
    return new Reading(Map.copyOf(values));
  }

  private static double[] numbers(DataPointSnapshot point) {
    return switch (point) {
      case CounterSnapshot.CounterDataPointSnapshot c -> new double[] {c.getValue(), 0};
      case GaugeSnapshot.GaugeDataPointSnapshot g -> new double[] {g.getValue(), 0};
      case HistogramSnapshot.HistogramDataPointSnapshot h ->
          new double[] {h.getCount(), h.getSum()};
      default -> new double[] {0, 0};
    };
  }
}
