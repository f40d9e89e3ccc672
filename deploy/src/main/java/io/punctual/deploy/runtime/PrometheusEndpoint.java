package io.punctual.deploy.runtime;

import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.punctual.common.metrics.MetricLabels;
import io.punctual.common.metrics.PrometheusExposition;

/**
 * Serves the role's metrics in the Prometheus text format at {@value #PATH} on the admin port,
 * through the Prometheus client's servlet (the JSON {@code /metrics} page stays as it is).
 */
public final class PrometheusEndpoint {
  public static final String PATH = "/prometheus";

  private PrometheusEndpoint() {}

  /**
   * Call before the role's parts are made, so that the label caps apply to everything they record.
   */
  public static void register(Environment environment, MetricLabels labels) {
    var registry = PrometheusExposition.registry(environment.metrics(), labels);
    environment
        .admin()
        .addServlet("prometheus", new PrometheusMetricsServlet(registry))
        .addMapping(PATH);
  }
}
