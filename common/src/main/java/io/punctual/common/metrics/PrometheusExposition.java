package io.punctual.common.metrics;

import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The Prometheus registry a role exposes: its labelled {@link JobMetrics}, every Dropwizard metric
 * of its registry through the Prometheus client's Dropwizard bridge (names with dots become
 * underscores: {@code punctual.reaper.rescued} is {@code punctual_reaper_rescued_total}), and the
 * JVM metrics of the Prometheus client. The bridge leaves out Dropwizard's own {@code jvm.*} gauges
 * (the Prometheus JVM metrics replace them, and the thread dump behind some is slow) and the
 * per-namespace {@code punctual.queue.*} gauges (the labelled queue gauges replace them).
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
            .metricFilter(bridged())
            .register(registry);
        JvmMetrics.builder().register(registry);
        jobs.exposed = true;
      }
    }
    return registry;
  }

  static MetricFilter bridged() {
    return (name, metric) -> !name.startsWith("jvm.") && !name.startsWith("punctual.queue.");
  }
}
