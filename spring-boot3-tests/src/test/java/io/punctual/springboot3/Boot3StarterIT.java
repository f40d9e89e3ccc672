package io.punctual.springboot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.punctual.client.JobRequest;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.spring.EmbeddedWorkerLifecycle;
import io.punctual.spring.OutboxRelayLifecycle;
import io.punctual.spring.PunctualActuatorHealthIndicator;
import io.punctual.spring.PunctualAutoConfiguration;
import io.punctual.spring.PunctualOutboxAutoConfiguration;
import io.punctual.spring.TransactionalJobs;
import io.punctual.spring.TransactionalOutbox;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.SpringVersion;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter on Spring Boot 3.5 (Spring Framework 6.2) and Boot 3's Actuator, on real PostgreSQL
 * and Redis: the auto-configuration is listed where Boot 3 finds it, a handler bean runs a job
 * submitted in a committed Spring transaction, a rolled-back one leaves no job, Boot 3's Actuator
 * gets the {@code punctual} health and its Micrometer registry the job meters; in outbox mode,
 * requests join Boot 3's transactions and the relay starts with the context. Boot 3's parent picks
 * the versions of the libraries it manages.
 */
class Boot3StarterIT {
  private PostgresSettings postgres;
  private RedisSettings redis;
  private HikariDataSource pool;

  /** A handler bean of the application: records each job it ran. */
  static final class Recording implements JobHandler {
    final List<UUID> ran = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "order.confirm";
    }

    @Override
    public JobResult handle(JobContext ctx) {
      ran.add(ctx.jobId());
      return JobResult.success();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    Recording recording() {
      return new Recording();
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  @BeforeEach
  void setUp() {
    postgres = TestStores.get().newDatabase();
    redis = TestRedis.newRedis();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(postgres.url);
    config.setUsername(postgres.user);
    config.setPassword(postgres.password);
    config.setMaximumPoolSize(8);
    pool = new HikariDataSource(config);
    new JdbcTemplate(pool).execute("CREATE TABLE app_orders (id bigint PRIMARY KEY)");
  }

  @AfterEach
  void tearDown() {
    pool.close();
    TestStores.get().dropDatabase(postgres);
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PunctualAutoConfiguration.class))
        .withBean(DataSource.class, () -> new DelegatingDataSource(pool))
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "punctual.redis.url=" + redis.url,
            "punctual.redis.key-prefix=" + redis.keyPrefix,
            "punctual.worker.shutdown-grace=PT10S");
  }

  private String status(UUID id) {
    List<String> found =
        new JdbcTemplate(pool)
            .queryForList("SELECT status FROM jobs WHERE id = ?", String.class, id);
    return found.isEmpty() ? null : found.get(0);
  }

  @Test
  void runsOnSpringBoot3AndBoot3FindsTheAutoConfiguration() throws IOException {
    assertThat(SpringBootVersion.getVersion()).startsWith("3.");
    assertThat(SpringVersion.getVersion()).startsWith("6.");
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream(
                "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
          .contains(PunctualAutoConfiguration.class.getName());
    }
  }

  @Test
  void aCommittedJobRunsOnTheEmbeddedWorkerAndARolledBackOneDoesNot() {
    runner()
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration
                    .class,
                org.springframework.boot.actuate.autoconfigure.metrics
                    .CompositeMeterRegistryAutoConfiguration.class,
                org.springframework.boot.actuate.autoconfigure.metrics.export.simple
                    .SimpleMetricsExportAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(EmbeddedWorkerLifecycle.class).isRunning()).isTrue();
              Health health = context.getBean(PunctualActuatorHealthIndicator.class).health();
              assertThat(health.getStatus().getCode()).as("%s", health).isEqualTo("UP");
              assertThat(health.getDetails())
                  .containsEntry("postgres", true)
                  .containsEntry("redis", true)
                  .containsEntry("claimLoop", true);

              TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
              UUID committed =
                  tx.execute(
                      s -> {
                        jdbc.update("INSERT INTO app_orders VALUES (1)");
                        return jobs.submit(JobRequest.builder("order.confirm").build());
                      });
              UUID rolledBack =
                  tx.execute(
                      s -> {
                        jdbc.update("INSERT INTO app_orders VALUES (2)");
                        UUID id = jobs.submit(JobRequest.builder("order.confirm").build());
                        s.setRollbackOnly();
                        return id;
                      });

              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> "SUCCEEDED".equals(status(committed)));
              assertThat(context.getBean(Recording.class).ran).containsExactly(committed);
              MeterRegistry meters = context.getBean(MeterRegistry.class);
              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(
                      () -> {
                        FunctionCounter finished =
                            meters
                                .find("punctual.jobs.finished")
                                .tags("type", "order.confirm", "outcome", "succeeded")
                                .functionCounter();
                        return finished != null && finished.count() == 1;
                      });
              assertThat(status(rolledBack)).isNull();
              assertThat(
                      new JdbcTemplate(pool)
                          .queryForObject("SELECT count(*) FROM app_orders", Long.class))
                  .isEqualTo(1);
            });
  }

  @Test
  void theOutboxJoinsBoot3TransactionsAndItsRelayStartsWithTheContext() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort(); // nothing listens there once closed
    }
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                PunctualAutoConfiguration.class, PunctualOutboxAutoConfiguration.class))
        .withBean(DataSource.class, () -> new DelegatingDataSource(pool))
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "punctual.outbox.enabled=true",
            "punctual.outbox.create-table=true",
            "punctual.outbox.api-url=http://127.0.0.1:" + closedPort)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context)
                  .doesNotHaveBean(TransactionalJobs.class)
                  .doesNotHaveBean(EmbeddedWorkerLifecycle.class);
              assertThat(context.getBean(OutboxRelayLifecycle.class).isRunning()).isTrue();
              TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
              tx.executeWithoutResult(
                  s -> {
                    jdbc.update("INSERT INTO app_orders VALUES (1)");
                    outbox.enqueue(JobRequest.builder("order.confirm").build());
                  });
              tx.executeWithoutResult(
                  s -> {
                    jdbc.update("INSERT INTO app_orders VALUES (2)");
                    outbox.enqueue(JobRequest.builder("order.confirm").build());
                    s.setRollbackOnly();
                  });
              JdbcTemplate direct = new JdbcTemplate(pool);
              assertThat(direct.queryForObject("SELECT count(*) FROM app_orders", Long.class))
                  .isEqualTo(1);
              assertThat(direct.queryForObject("SELECT count(*) FROM punctual_outbox", Long.class))
                  .isEqualTo(1);
              // The relay runs: it tries the API, which does not answer, and the row waits for
              // its next try (not set aside).
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          direct.queryForObject(
                                  "SELECT count(*) FROM punctual_outbox"
                                      + " WHERE attempts >= 1 AND last_error IS NOT NULL"
                                      + " AND dead_at IS NULL",
                                  Long.class)
                              == 1);
            });
  }
}
