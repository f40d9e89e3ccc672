package io.punctual.common.metrics;

/**
 * How many distinct namespaces and job types keep their own label in the labelled metrics; later
 * ones are counted under {@code other}.
 *
 * @param maxNamespaces distinct namespaces labelled by name
 * @param maxTypes distinct job types labelled by name
 */
public record MetricLabels(int maxNamespaces, int maxTypes) {
  public static final int DEFAULT_MAX = 100;
  public static final MetricLabels DEFAULTS = new MetricLabels(DEFAULT_MAX, DEFAULT_MAX);
}
