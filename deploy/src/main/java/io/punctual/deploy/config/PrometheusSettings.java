package io.punctual.deploy.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.metrics.MetricLabels;

/**
 * The {@code prometheus} section: the admin port's {@code /prometheus} page and how many distinct
 * namespaces and job types keep their own label there (later ones are counted as {@code other}).
 */
public class PrometheusSettings {
  /** Distinct namespaces labelled by name; later ones are {@code other}. */
  @JsonProperty public int maxNamespaces = MetricLabels.DEFAULT_MAX;

  /** Distinct job types labelled by name; later ones are {@code other}. */
  @JsonProperty public int maxTypes = MetricLabels.DEFAULT_MAX;

  public MetricLabels labels() {
    return new MetricLabels(maxNamespaces, maxTypes);
  }

  void validate(SettingsErrors errors) {
    errors.require(maxNamespaces >= 0, "prometheus.maxNamespaces must be >= 0");
    errors.require(maxTypes >= 0, "prometheus.maxTypes must be >= 0");
  }
}
