package io.punctual.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.punctual.app.PunctualJobs;
import io.punctual.client.JobRequest;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter's outbox mode end to end: an application context on a database of its own (not
 * Punctual's), job requests written in its Spring-managed transactions, its relay forwarding them
 * to a real Punctual API (the app module's test API, in a JVM of its own, on real PostgreSQL and
 * Redis).
 */
class OutboxStarterIT {
  /** The app module's test API's bootstrap admin key ({@code io.punctual.app.ApiMain}). */
  private static final String API_KEY = "outbox-test-admin-key-0123456789abcdefghijklmnop";

  private static PostgresSettings punctualDb;
  private static Process api;
  private static int apiPort;

  private AppDatabase appDb;
  private HikariDataSource pool;

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  @BeforeAll
  static void startApi() throws Exception {
    punctualDb = TestStores.get().newDatabase();
    RedisSettings redis = TestRedis.newRedis();
    try (ServerSocket s = new ServerSocket(0)) {
      apiPort = s.getLocalPort();
    }
    Path app = Path.of("..", "app", "target").toAbsolutePath().normalize();
    String classPath =
        app.resolve("classes")
            + java.io.File.pathSeparator
            + app.resolve("test-classes")
            + java.io.File.pathSeparator
            + Files.readString(app.resolve("api-test-classpath.txt")).strip();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xmx256m",
            "-cp",
            classPath,
            "io.punctual.app.ApiMain",
            punctualDb.url,
            punctualDb.user,
            punctualDb.password,
            redis.url,
            redis.keyPrefix,
            Integer.toString(apiPort)));
    api = new ProcessBuilder(command).redirectErrorStream(true).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(api.getInputStream(), StandardCharsets.UTF_8));
    String ready =
        CompletableFuture.supplyAsync(
                () -> {
                  try {
                    String line;
                    while ((line = out.readLine()) != null && !line.equals("api ready")) {
                      // its start-up log
                    }
                    return line;
                  } catch (java.io.IOException e) {
                    return null;
                  }
                })
            .get(90, TimeUnit.SECONDS);
    assertThat(ready).as("the API started").isEqualTo("api ready");
    Thread.ofPlatform().daemon().start(() -> out.lines().forEach(line -> {}));
  }

  @AfterAll
  static void stopApi() throws Exception {
    if (api != null) {
      api.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    TestStores.get().dropDatabase(punctualDb);
  }

  @BeforeEach
  void setUp() {
    appDb = new AppDatabase(8);
    pool = appDb.pool;
  }

  @AfterEach
  void tearDown() {
    appDb.close();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                PunctualAutoConfiguration.class, PunctualOutboxAutoConfiguration.class))
        .withBean(DataSource.class, () -> new DelegatingDataSource(pool))
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "punctual.outbox.enabled=true",
            "punctual.outbox.api-url=http://127.0.0.1:" + apiPort,
            "punctual.outbox.api-key=" + API_KEY,
            "punctual.outbox.create-table=true");
  }

  private static long count(DataSource ds, String sql, Object... args) {
    Long n = new JdbcTemplate(ds).queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }

  private static DataSource punctual() {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setUrl(punctualDb.url);
    ds.setUser(punctualDb.user);
    ds.setPassword(punctualDb.password);
    return ds;
  }

  @Test
  void aCommittedRequestBecomesOneJobAndARolledBackOneNone() {
    runner()
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration
                    .class,
                org.springframework.boot.micrometer.metrics.autoconfigure
                    .CompositeMeterRegistryAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.export.simple
                    .SimpleMetricsExportAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(PunctualJobs.class);
              assertThat(context).doesNotHaveBean(TransactionalJobs.class);
              assertThat(context).hasSingleBean(OutboxRelayLifecycle.class);
              TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
              tx.executeWithoutResult(
                  s -> {
                    jdbc.update("INSERT INTO app_orders VALUES (1)");
                    outbox.enqueue(
                        JobRequest.builder("starter.outbox").idempotencyKey("order-1").build());
                  });
              tx.executeWithoutResult(
                  s -> {
                    jdbc.update("INSERT INTO app_orders VALUES (2)");
                    outbox.enqueue(
                        JobRequest.builder("starter.outbox").idempotencyKey("order-2").build());
                    s.setRollbackOnly();
                  });

              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> count(pool, "SELECT count(*) FROM punctual_outbox") == 0);
              assertThat(
                      count(
                          punctual(),
                          "SELECT count(*) FROM jobs WHERE idempotency_key = ? AND namespace"
                              + " = 'default' AND type = 'starter.outbox'",
                          "order-1"))
                  .isEqualTo(1);
              assertThat(
                      count(
                          punctual(),
                          "SELECT count(*) FROM jobs WHERE idempotency_key = ?",
                          "order-2"))
                  .isZero();
              assertThat(count(pool, "SELECT count(*) FROM app_orders")).isEqualTo(1);
              MeterRegistry meters = context.getBean(MeterRegistry.class);
              assertThat(meters.find("punctual.outbox.forwarded").functionCounter().count())
                  .isEqualTo(1);
              assertThat(meters.find("punctual.outbox.rows.waiting").gauge()).isNotNull();
            });
  }

  @Test
  void withoutARelayRequestsWaitAndOutsideATransactionEachCommitsOnItsOwn() {
    runner()
        // An instance that only writes rows needs no API address.
        .withPropertyValues("punctual.outbox.relay=false", "punctual.outbox.api-url=")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
              TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
              long row =
                  outbox
                      .enqueueAll(
                          List.of(
                              JobRequest.builder("starter.outbox").build(),
                              JobRequest.builder("starter.outbox").build()))
                      .get(1);
              assertThat(row).isPositive();
              outbox
                  .inNamespace("billing")
                  .enqueueWorkflow(
                      io.punctual.client.WorkflowRequest.of(
                          JobRequest.builder("starter.outbox").ref("only").build()));
              assertThat(count(pool, "SELECT count(*) FROM punctual_outbox")).isEqualTo(3);
              assertThat(
                      count(
                          pool,
                          "SELECT count(*) FROM punctual_outbox WHERE request->>'namespace'"
                              + " = 'billing' AND request->'workflow' IS NOT NULL"))
                  .isEqualTo(1);
            });
  }

  @Test
  void wrongOutboxSettingsFailTheStartNamingTheProperty() {
    runner()
        .withPropertyValues(
            "punctual.outbox.api-url=ftp://127.0.0.1", "punctual.outbox.forward-concurrency=0")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(PunctualStarterIT.settingsFailure(context.getStartupFailure()))
                  .hasMessageContaining(
                      "punctual.outbox.api-url must be an http:// or https:// URL with a host")
                  .hasMessageContaining(
                      "punctual.outbox.forward-concurrency must be between 1 and 256: 0");
            });
  }
}
