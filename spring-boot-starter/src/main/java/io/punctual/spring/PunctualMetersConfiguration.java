package io.punctual.spring;

import io.punctual.spring.metrics.WorkerMeters;
import io.punctual.spring.metrics.WorkerMetricRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The registry of Punctual's Dropwizard meters in the application (the embedded worker's, or the
 * outbox relay's), and those meters in the application's Micrometer registry when it has
 * Micrometer. Imported by both auto-configurations.
 */
@Configuration(proxyBeanMethods = false)
class PunctualMetersConfiguration {
  @Bean
  @ConditionalOnMissingBean
  WorkerMetricRegistry punctualWorkerMetrics() {
    return new WorkerMetricRegistry();
  }

  /** The Dropwizard meters in Micrometer, under the same names. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  static class Micrometer {
    @Bean
    @ConditionalOnMissingBean
    WorkerMeters punctualWorkerMeters(WorkerMetricRegistry registry) {
      return new WorkerMeters(registry);
    }
  }
}
