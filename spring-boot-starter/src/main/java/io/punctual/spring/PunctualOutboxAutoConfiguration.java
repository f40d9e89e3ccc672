package io.punctual.spring;

import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.PunctualOutbox;
import io.punctual.client.PunctualClient;
import io.punctual.spring.metrics.WorkerMetricRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The outbox in a Spring Boot application whose {@link DataSource} is its own database, not
 * Punctual's ({@code punctual.outbox.enabled=true}): {@link TransactionalOutbox} writes job
 * requests as rows of {@code punctual_outbox} in the Spring-managed transaction, and a relay
 * ({@link OutboxRelayLifecycle}, unless {@code punctual.outbox.relay=false}) forwards them to the
 * API at {@code punctual.outbox.api-url} into {@code punctual.namespace}. Its meters go where the
 * embedded worker's would ({@link WorkerMetricRegistry}, and Micrometer when there is one).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
    })
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "punctual.outbox", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(PunctualProperties.class)
@Import(PunctualMetersConfiguration.class)
public class PunctualOutboxAutoConfiguration {

  /**
   * Checks the job requests as the API would, with {@code punctual.callback-allow}; creates the
   * table first with {@code punctual.outbox.create-table}. Wrong {@code punctual.outbox.*} settings
   * fail the context here, each named.
   */
  @Bean
  @ConditionalOnMissingBean
  public PunctualOutbox punctualOutbox(
      DataSource dataSource, PunctualProperties properties, ObjectProvider<Clock> clocks)
      throws SQLException {
    PropertiesCheck.outbox(properties.getOutbox());
    PunctualOutbox outbox =
        PunctualOutbox.create(
            PunctualAutoConfiguration.clock(clocks), PropertiesCheck.jobDefaults(properties));
    if (properties.getOutbox().isCreateTable()) {
      try (Connection c = dataSource.getConnection()) {
        PunctualOutbox.createTable(c);
        if (!c.getAutoCommit()) {
          c.commit();
        }
      }
    }
    return outbox;
  }

  /** Job requests that join the Spring-managed transaction. */
  @Bean
  @ConditionalOnMissingBean
  public TransactionalOutbox transactionalOutbox(PunctualOutbox outbox, DataSource dataSource) {
    return new TransactionalOutbox(outbox, dataSource);
  }

  /** The relay, started and stopped with the context. */
  @Bean
  @ConditionalOnProperty(
      prefix = "punctual.outbox",
      name = "relay",
      havingValue = "true",
      matchIfMissing = true)
  @ConditionalOnMissingBean
  public OutboxRelayLifecycle punctualOutboxRelay(
      DataSource dataSource,
      PunctualProperties properties,
      ObjectProvider<Clock> clocks,
      WorkerMetricRegistry metrics,
      PunctualOutbox tableReady) {
    // tableReady: built (and the table created, with create-table) before the relay starts.
    PropertiesCheck.Outbox settings = PropertiesCheck.outbox(properties.getOutbox());
    PunctualClient client = PunctualClient.create(settings.apiUrl(), properties.getNamespace());
    String key = properties.getOutbox().getApiKey();
    if (key != null && !key.isBlank()) {
      client = client.withApiKey(key.strip());
    }
    return new OutboxRelayLifecycle(
        new OutboxRelay(
            dataSource,
            client,
            PunctualAutoConfiguration.clock(clocks),
            settings.relay(),
            metrics.registry()));
  }
}
