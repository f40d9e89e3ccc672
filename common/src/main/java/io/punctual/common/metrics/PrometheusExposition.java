package io.punctual.common.metrics;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Sampling;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * The Prometheus registry a role exposes: its labelled {@link JobMetrics}, every Dropwizard metric
 * of its registry through the Prometheus client's Dropwizard bridge (names with dots become
 * underscores: {@code punctual.reaper.rescued} is {@code punctual_reaper_rescued_total}), and the
 * JVM metrics of the Prometheus client. The bridge leaves out Dropwizard's own {@code jvm.*} gauges
 * (the Prometheus JVM metrics replace them, and the thread dump behind some is slow) and the
 * per-namespace {@code punctual.queue.*} gauges (the labelled queue gauges replace them), the
 * timers of Jersey's request and response filters ({@code <method>.request.filtering}, {@code
 * <method>.response.filtering}: two thirds of an API's scrape, each a reservoir sorted per scrape,
 * and no dashboard reads them; the JSON {@code /metrics} keeps them), a timer or histogram that has
 * recorded nothing yet ({@link #unused}), and a metric whose Prometheus name would repeat another's
 * ({@link #collidesWithAnother}).
 */
public final class PrometheusExposition {
  private PrometheusExposition() {}

  /** Builds it once per Dropwizard registry; later calls return the same one. */
  public static PrometheusRegistry registry(MetricRegistry metrics, MetricLabels labels) {
    JobMetrics jobs = JobMetrics.install(metrics, labels);
    PrometheusRegistry registry = jobs.registry();
    synchronized (jobs) {
      if (!jobs.exposed) {
        DropwizardExports.builder()
            .dropwizardRegistry(metrics)
            .metricFilter(bridged(metrics))
            .register(registry);
        JvmMetrics.builder().register(registry);
        jobs.exposed = true;
      }
    }
    return registry;
  }

  /**
   * The Prometheus client strips these suffixes from a name, so a Dropwizard metric ending in one
   * becomes the same Prometheus name as the metric without it: the bridge then refuses the whole
   * scrape (a 500 on {@code /prometheus}). Jersey's {@code @Timed} resource methods register such
   * pairs ({@code ...JobsResource.submit} and {@code ...JobsResource.submit.total}).
   */
  private static final List<String> STRIPPED_SUFFIXES =
      List.of(".total", ".created", ".bucket", ".info", "_total", "_created", "_bucket", "_info");

  static MetricFilter bridged(MetricRegistry metrics) {
    return (name, metric) ->
        !name.startsWith("jvm.")
            && !name.startsWith("punctual.queue.")
            && !name.endsWith(".request.filtering")
            && !name.endsWith(".response.filtering")
            && !unused(metric)
            && !collidesWithAnother(name, metrics);
  }

  /**
   * A timer or histogram with no value recorded yet: it would be a summary of zeros (six quantiles,
   * a count and its help text), and most of an API's are of resource methods nobody called (64 of
   * the 81 summaries of a {@code dev} scrape after 200 submits, half of its 97 KB). It joins the
   * scrape at its first value; its count starts from that scrape, as a new labelled series does.
   */
  static boolean unused(Metric metric) {
    return metric instanceof Sampling && metric instanceof Counting c && c.getCount() == 0;
  }

  /**
   * Whether {@code name} ends in a suffix the Prometheus client strips and the registry also holds
   * the name without it (that one is bridged; this one, such as Jersey's {@code <method>.total}
   * timer beside the {@code <method>} timer, is left out).
   */
  static boolean collidesWithAnother(String name, MetricRegistry metrics) {
    for (String suffix : STRIPPED_SUFFIXES) {
      if (name.endsWith(suffix)
          && metrics.getMetrics().containsKey(name.substring(0, name.length() - suffix.length()))) {
        return true;
      }
    }
    return false;
  }
}
