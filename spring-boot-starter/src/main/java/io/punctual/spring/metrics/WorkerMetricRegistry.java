package io.punctual.spring.metrics;

import com.codahale.metrics.MetricRegistry;

/**
 * The Dropwizard registry the embedded worker writes its meters to (those {@code punctual worker}
 * shows on {@code /metrics}), or, with the outbox, the relay's ({@code punctual.outbox.*}): a
 * registry of its own, not a bean the application may have.
 */
public final class WorkerMetricRegistry {
  private final MetricRegistry registry = new MetricRegistry();

  public MetricRegistry registry() {
    return registry;
  }
}
