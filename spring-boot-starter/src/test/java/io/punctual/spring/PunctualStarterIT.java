package io.punctual.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.punctual.app.PunctualJobs;
import io.punctual.client.Dependency;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
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
 * The starter in a Spring application context on real PostgreSQL and Redis: JobHandler beans run on
 * an embedded worker that starts and stops with the context; jobs submitted in a Spring-managed
 * transaction exist once it commits and not after a rollback.
 */
class PunctualStarterIT {
  private AppDatabase appDb;
  private RedisSettings redis;
  private HikariDataSource pool;

  /** A handler bean of the application: records each job it ran, sleeping first if asked. */
  static final class Recording implements JobHandler {
    final List<UUID> started = new CopyOnWriteArrayList<>();
    final List<UUID> finished = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "order.confirm";
    }

    @Override
    public JobResult handle(JobContext ctx) throws Exception {
      started.add(ctx.jobId());
      if (ctx.payload().path("sleepMs").asLong() > 0) {
        Thread.sleep(ctx.payload().path("sleepMs").asLong());
      }
      finished.add(ctx.jobId());
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
    appDb = new AppDatabase(12);
    pool = appDb.pool;
    redis = TestRedis.newRedis();
  }

  @AfterEach
  void tearDown() {
    appDb.close();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PunctualAutoConfiguration.class))
        .withBean(DataSource.class, this::appDataSource)
        .withUserConfiguration(App.class)
        .withPropertyValues(
            "punctual.redis.url=" + redis.url,
            "punctual.redis.key-prefix=" + redis.keyPrefix,
            "punctual.worker.shutdown-grace=PT10S");
  }

  /** The application's DataSource bean: the test's pool, which the context must not close. */
  private DataSource appDataSource() {
    return new DelegatingDataSource(pool);
  }

  /** A job's status read on a connection of its own (outside any Spring transaction). */
  private String status(UUID id) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT status FROM jobs WHERE id = ?")) {
      s.setObject(1, id);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private long count(String table) {
    return new JdbcTemplate(pool).queryForObject("SELECT count(*) FROM " + table, Long.class);
  }

  @Test
  void aJobSubmittedInASpringTransactionRunsOnceAfterItsCommit() {
    runner()
        .run(
            context -> {
              assertThat(context).hasSingleBean(EmbeddedWorkerLifecycle.class);
              assertThat(context.getBean(EmbeddedWorkerLifecycle.class).isRunning()).isTrue();
              org.springframework.boot.health.contributor.Health health =
                  context.getBean(PunctualHealthIndicator.class).health();
              assertThat(health.getStatus().getCode()).as("%s", health).isEqualTo("UP");
              assertThat(health.getDetails())
                  .containsEntry("postgres", true)
                  .containsEntry("redis", true)
                  .containsEntry("claimLoop", true);
              TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
              Recording handler = context.getBean(Recording.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              UUID id =
                  tx.execute(
                      s -> {
                        new JdbcTemplate(context.getBean(DataSource.class))
                            .update("INSERT INTO app_orders VALUES (1)");
                        UUID submitted = jobs.submit(JobRequest.builder("order.confirm").build());
                        // Inside the transaction only: not visible to another connection yet.
                        try {
                          assertThat(status(submitted)).isNull();
                        } catch (SQLException e) {
                          throw new IllegalStateException(e);
                        }
                        return submitted;
                      });
              await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCEEDED".equals(status(id)));
              Thread.sleep(500);
              assertThat(handler.finished).containsExactly(id);
              assertThat(count("app_orders")).isEqualTo(1);
            });
  }

  @Test
  void aRolledBackSpringTransactionLeavesNoJob() {
    runner()
        .run(
            context -> {
              TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              UUID id =
                  tx.execute(
                      s -> {
                        new JdbcTemplate(context.getBean(DataSource.class))
                            .update("INSERT INTO app_orders VALUES (2)");
                        UUID submitted = jobs.submit(JobRequest.builder("order.confirm").build());
                        s.setRollbackOnly();
                        return submitted;
                      });
              Thread.sleep(1_500);
              assertThat(status(id)).isNull();
              assertThat(count("jobs")).isZero();
              assertThat(count("app_orders")).isZero();
              assertThat(context.getBean(Recording.class).started).isEmpty();
            });
  }

  @Test
  void aBatchJoinsTheTransactionWhole() {
    runner()
        .run(
            context -> {
              TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              List<UUID> ids =
                  tx.execute(
                      s ->
                          jobs.submitAll(
                              List.of(
                                  JobRequest.builder("order.confirm").build(),
                                  JobRequest.builder("order.confirm").tags("b").build())));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> context.getBean(Recording.class).finished.size() == 2);
              assertThat(context.getBean(Recording.class).finished)
                  .containsExactlyInAnyOrderElementsOf(ids);
            });
  }

  @Test
  void aWorkflowJoinsTheTransactionAndARollbackLeavesNoneOfIt() {
    runner()
        .run(
            context -> {
              TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              WorkflowRequest workflow =
                  WorkflowRequest.of(
                      JobRequest.builder("order.confirm").ref("first").build(),
                      JobRequest.builder("order.confirm")
                          .ref("second")
                          .dependsOn(Dependency.onStep("first"))
                          .build());
              tx.executeWithoutResult(
                  s -> {
                    jobs.submitWorkflow(workflow);
                    s.setRollbackOnly();
                  });
              assertThat(count("jobs")).isZero();
              assertThat(count("workflows")).isZero();

              UUID id = tx.execute(s -> jobs.submitWorkflow(workflow));
              assertThat(id).isNotNull();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> context.getBean(Recording.class).finished.size() == 2);
              assertThat(count("workflows")).isEqualTo(1);
              assertThat(count("jobs")).isEqualTo(2);
            });
  }

  @Test
  void theHealthIsDownOnceTheWorkersClaimLoopStops() {
    runner()
        .run(
            context -> {
              PunctualHealthIndicator indicator = context.getBean(PunctualHealthIndicator.class);
              assertThat(indicator.health().getStatus().getCode()).isEqualTo("UP");
              context.getBean(EmbeddedWorkerLifecycle.class).stop();
              org.springframework.boot.health.contributor.Health down = indicator.health();
              assertThat(down.getStatus().getCode()).isEqualTo("DOWN");
              assertThat(down.getDetails())
                  .containsEntry("claimLoop", false)
                  .containsEntry("postgres", true);
            });
  }

  @Test
  void theWorkersMetersAreInTheApplicationsMicrometerRegistry() {
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
              MeterRegistry meters = context.getBean(MeterRegistry.class);
              UUID id =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(
                          JobRequest.builder("order.confirm")
                              .payload(java.util.Map.of("sleepMs", 1_500))
                              .build());
              // While the handler sleeps, the running gauge shows it.
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> meters.find("punctual.jobs.running").gauge().value() == 1);
              await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCEEDED".equals(status(id)));
              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(
                      () -> {
                        FunctionCounter succeeded =
                            meters.find("punctual.worker.succeeded").functionCounter();
                        return succeeded != null && succeeded.count() >= 1;
                      });
              assertThat(meters.find("punctual.worker.claimed").functionCounter().count())
                  .isGreaterThanOrEqualTo(1);
              assertThat(meters.find("punctual.worker.running").gauge()).isNotNull();
              assertThat(meters.find("punctual.worker.execution").functionTimer().count())
                  .isGreaterThanOrEqualTo(1);
              // The tagged job meters: the series appear and move once the job ran.
              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(
                      () -> {
                        FunctionCounter finished =
                            meters
                                .find("punctual.jobs.finished")
                                .tags(
                                    "namespace",
                                    "default",
                                    "type",
                                    "order.confirm",
                                    "outcome",
                                    "succeeded")
                                .functionCounter();
                        return finished != null && finished.count() == 1;
                      });
              assertThat(
                      meters
                          .find("punctual.jobs.started")
                          .tags("namespace", "default", "type", "order.confirm")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
              FunctionTimer lag =
                  meters
                      .find("punctual.jobs.start.lag")
                      .tags("namespace", "default", "priority", "normal")
                      .functionTimer();
              assertThat(lag.count()).isEqualTo(1);
              assertThat(lag.totalTime(TimeUnit.SECONDS)).isBetween(0.0, 5.0);
              assertThat(meters.find("punctual.jobs.running").gauge().value()).isZero();
              assertThat(
                      meters
                          .find("punctual.jobs.queued")
                          .tags("namespace", "default", "priority", "normal", "when", "due")
                          .gauge())
                  .isNotNull();
            });
  }

  @Test
  void outsideATransactionASubmitCommitsOnItsOwn() {
    runner()
        .run(
            context -> {
              UUID id =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(JobRequest.builder("order.confirm").build());
              await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCEEDED".equals(status(id)));
              String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
              UUID traced =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(JobRequest.builder("order.confirm").build(), traceparent);
              assertThat(
                      new JdbcTemplate(pool)
                          .queryForObject(
                              "SELECT traceparent FROM jobs WHERE id = ?", String.class, traced))
                  .isEqualTo(traceparent);
            });
  }

  /**
   * A handler outlasting the grace when the context closes is handed back: its job is PENDING again
   * at once (its attempt recorded HANDED_BACK), not left RUNNING for a reaper to rescue.
   */
  @Test
  void stoppingTheContextHandsBackWhatOutlastsTheGrace() throws SQLException {
    UUID[] id = new UUID[1];
    Recording[] handler = new Recording[1];
    runner()
        .withPropertyValues("punctual.worker.shutdown-grace=PT1S")
        .run(
            context -> {
              handler[0] = context.getBean(Recording.class);
              id[0] =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(
                          JobRequest.builder("order.confirm")
                              .payload(java.util.Map.of("sleepMs", 30_000))
                              .build());
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> handler[0].started.contains(id[0]));
            }); // the context closes here, the handler far from done
    assertThat(handler[0].finished).isEmpty();
    assertThat(status(id[0])).isEqualTo("PENDING");
    assertThat(
            new JdbcTemplate(pool)
                .queryForList(
                    "SELECT status FROM job_executions WHERE job_id = ?", String.class, id[0]))
        .containsExactly("HANDED_BACK");
  }

  /** Closing the context lets a running handler finish: no RUNNING attempt is left behind. */
  @Test
  void stoppingTheContextLeavesNoRunningAttemptBehind() throws SQLException {
    UUID[] id = new UUID[1];
    Recording[] handler = new Recording[1];
    runner()
        .run(
            context -> {
              handler[0] = context.getBean(Recording.class);
              id[0] =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(
                          JobRequest.builder("order.confirm")
                              .payload(java.util.Map.of("sleepMs", 2_000))
                              .build());
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> handler[0].started.contains(id[0]));
            }); // the context closes here, the handler still running
    assertThat(handler[0].finished).containsExactly(id[0]);
    assertThat(status(id[0])).isEqualTo("SUCCEEDED");
    assertThat(
            new JdbcTemplate(pool)
                .queryForObject("SELECT count(*) FROM jobs WHERE status = 'RUNNING'", Long.class))
        .isZero();
  }

  @Test
  void withoutHandlerBeansOrWhenDisabledThereIsNoWorkerButJobsStillGoIn() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PunctualAutoConfiguration.class))
        .withBean(DataSource.class, this::appDataSource)
        .withPropertyValues(
            "punctual.redis.url=" + redis.url, "punctual.redis.key-prefix=" + redis.keyPrefix)
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(EmbeddedWorkerLifecycle.class);
              assertThat(context).hasSingleBean(PunctualJobs.class);
              UUID id =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(JobRequest.builder("order.confirm").build());
              assertThat(status(id)).isEqualTo("PENDING");
            });
    runner()
        .withPropertyValues("punctual.worker.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(EmbeddedWorkerLifecycle.class));
  }

  /** Every punctual.worker.* setting reaches the worker: here its name, on the attempt's row. */
  @Test
  void theWorkerSettingsAreBoundFromTheProperties() {
    runner()
        .withPropertyValues(
            "punctual.worker.worker-id=orders-app-1",
            "punctual.worker.claim-batch-size=8",
            "punctual.worker.lease-ttl=20s",
            "punctual.worker.heartbeat-interval=5s",
            "punctual.worker.claim-ahead=0ms")
        .run(
            context -> {
              UUID id =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(JobRequest.builder("order.confirm").build());
              await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCEEDED".equals(status(id)));
              assertThat(
                      new JdbcTemplate(pool)
                          .queryForList(
                              "SELECT worker_id FROM job_executions WHERE job_id = ?",
                              String.class,
                              id))
                  .containsExactly("orders-app-1");
            });
  }

  /** Settings the YAML would refuse fail the context's start, each named by its property. */
  @Test
  void wrongWorkerSettingsFailTheStartNamingTheProperty() {
    runner()
        .withPropertyValues(
            "punctual.worker.lease-ttl=5s",
            "punctual.worker.heartbeat-interval=10s",
            "punctual.worker.claims-in-flight=0")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(settingsFailure(context.getStartupFailure()))
                  .hasMessageContaining(
                      "punctual.worker.heartbeat-interval must be shorter than"
                          + " punctual.worker.lease-ttl")
                  .hasMessageContaining("punctual.worker.claims-in-flight must be 1 to 16");
            });
  }

  /** punctual.redis.* and punctual.queue.* reach the stores, and wrong ones fail the start. */
  @Test
  void redisAndQueueSettingsAreBoundAndWrongOnesFailTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("punctual.queue.horizon=1s", "punctual.queue.promoter-slack=0s")
        .run(
            context -> {
              // Due in 5 s, past the 1 s horizon: not put in Redis at submit, the promoter's.
              UUID id =
                  context
                      .getBean(TransactionalJobs.class)
                      .submit(
                          JobRequest.builder("order.confirm").delay(Duration.ofSeconds(5)).build());
              try (var client = io.lettuce.core.RedisClient.create(redis.url);
                  var c = client.connect()) {
                for (String key : c.sync().keys(redis.keyPrefix + ":*")) {
                  if ("zset".equals(c.sync().type(key))) {
                    assertThat(c.sync().zscore(key, id.toString())).as(key).isNull();
                  }
                }
              }
              await().atMost(Duration.ofSeconds(15)).until(() -> "SUCCEEDED".equals(status(id)));
            });
    runner()
        .withPropertyValues(
            "punctual.redis.queue-shards=0",
            "punctual.queue.promoter-slack=20m",
            "punctual.queue.weights.urgent=2")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(settingsFailure(context.getStartupFailure()))
                  .hasMessageContaining("punctual.redis.queue-shards must be between 1 and 64")
                  .hasMessageContaining(
                      "punctual.queue.horizon must be larger than punctual.queue.promoter-slack")
                  .hasMessageContaining("punctual.queue.weights.urgent is not a priority");
            });
  }

  /** The {@link InvalidSettingsException} a context's start failed with, however deeply wrapped. */
  static Throwable settingsFailure(Throwable startupFailure) {
    Throwable cause = startupFailure;
    while (cause.getCause() != null && !(cause instanceof InvalidSettingsException)) {
      cause = cause.getCause();
    }
    assertThat(cause).isInstanceOf(InvalidSettingsException.class);
    return cause;
  }
}
