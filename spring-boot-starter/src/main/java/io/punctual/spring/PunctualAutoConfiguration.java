package io.punctual.spring;

import io.punctual.app.PunctualJobs;
import io.punctual.app.PunctualWorker;
import io.punctual.handler.JobHandler;
import io.punctual.spring.metrics.JobMeters;
import io.punctual.spring.metrics.WorkerMetricRegistry;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Punctual in a Spring Boot application, on its {@link DataSource} (which must hold Punctual's
 * schema, or set {@code punctual.migrate=true}): {@link PunctualJobs} and {@link TransactionalJobs}
 * (jobs in the Spring-managed transaction), and, when the context holds {@link JobHandler} beans
 * and {@code punctual.worker.enabled} is not false, an embedded worker running them that starts and
 * stops with the context ({@link EmbeddedWorkerLifecycle}). Not with {@code
 * punctual.outbox.enabled=true}: the database is then the application's own ({@link
 * PunctualOutboxAutoConfiguration}).
 *
 * <p>Time is read from the context's {@link Clock} bean when there is one, else from the system
 * clock: an application's auto-configuration is its wiring, the one place besides the launcher's
 * that picks it.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
    })
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(
    prefix = "punctual.outbox",
    name = "enabled",
    havingValue = "false",
    matchIfMissing = true)
@EnableConfigurationProperties(PunctualProperties.class)
@Import(PunctualMetersConfiguration.class)
public class PunctualAutoConfiguration {

  static Clock clock(ObjectProvider<Clock> clocks) {
    Clock clock = clocks.getIfUnique();
    return clock != null ? clock : Clock.systemUTC();
  }

  /** Jobs written on a caller's connection, in its transaction. Closed with the context. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public PunctualJobs punctualJobs(
      DataSource dataSource, PunctualProperties properties, ObjectProvider<Clock> clocks) {
    // Wrong punctual.redis.*, punctual.queue.* and punctual.callback-allow settings fail the
    // context here, each named.
    PropertiesCheck.Stores stores = PropertiesCheck.stores(properties);
    return PunctualJobs.builder()
        .dataSource(dataSource)
        .redis(stores.redis())
        .queue(stores.queue())
        .namespace(properties.getNamespace())
        .defaults(PropertiesCheck.jobDefaults(properties))
        .migrate(properties.isMigrate())
        .clock(clock(clocks))
        .build();
  }

  /** Jobs that join the Spring-managed transaction, enqueued after its commit. */
  @Bean
  @ConditionalOnMissingBean
  public TransactionalJobs transactionalJobs(PunctualJobs punctualJobs, DataSource dataSource) {
    return new TransactionalJobs(punctualJobs, dataSource);
  }

  /** The worker's tagged meters in the application's Micrometer registry, when it has one. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  static class MetersConfiguration {
    /** The tagged job meters: queued, running, started, finished by outcome, start lag. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    JobMeters punctualJobMeters(WorkerMetricRegistry registry) {
      return new JobMeters(registry);
    }
  }

  /** Actuator's {@code punctual} health, with Spring Boot 4's health module. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "punctualHealthIndicator")
    PunctualHealthIndicator punctualHealthIndicator(
        PunctualJobs punctualJobs, ObjectProvider<EmbeddedWorkerLifecycle> worker) {
      return new PunctualHealthIndicator(punctualJobs, worker.getIfAvailable());
    }
  }

  /** Actuator's {@code punctual} health, with Spring Boot 3's Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
  static class Boot3HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "punctualHealthIndicator")
    PunctualActuatorHealthIndicator punctualHealthIndicator(
        PunctualJobs punctualJobs, ObjectProvider<EmbeddedWorkerLifecycle> worker) {
      return new PunctualActuatorHealthIndicator(punctualJobs, worker.getIfAvailable());
    }
  }

  /** The embedded worker of the context's {@link JobHandler} beans. */
  @Bean
  @ConditionalOnBean(JobHandler.class)
  @ConditionalOnProperty(
      prefix = "punctual.worker",
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  @ConditionalOnMissingBean
  public EmbeddedWorkerLifecycle punctualWorker(
      DataSource dataSource,
      PunctualProperties properties,
      ObjectProvider<JobHandler> handlers,
      ObjectProvider<Clock> clocks,
      WorkerMetricRegistry metrics,
      PunctualJobs schemaChecked) {
    // schemaChecked: built (and migrated, with punctual.migrate) before the worker starts.
    // Wrong punctual.worker.* settings fail the context here, each named by its property.
    PropertiesCheck.worker(properties);
    return new EmbeddedWorkerLifecycle(
        () -> {
          PropertiesCheck.Stores stores = PropertiesCheck.stores(properties);
          PunctualWorker.Builder builder =
              PunctualWorker.builder()
                  .dataSource(dataSource)
                  .redis(stores.redis())
                  .queue(stores.queue())
                  .clock(clock(clocks))
                  .settings(PropertiesCheck.worker(properties))
                  .deathWatch(properties.getWorker().isDeathWatch())
                  .metrics(metrics.registry());
          handlers.orderedStream().forEach(builder::handler);
          return builder.build();
        });
  }
}
