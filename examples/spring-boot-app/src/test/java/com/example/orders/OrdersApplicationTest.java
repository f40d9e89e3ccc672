package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.client.JobRequest;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.spring.TransactionalJobs;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;

/**
 * The application on a real PostgreSQL and Redis, both started by the test (Punctual's embedded
 * servers): an order placed over HTTP is committed with its job, which the handler bean runs; an
 * order refused after its insert leaves neither the order nor a job.
 */
@SpringBootTest
@AutoConfigureMockMvc
class OrdersApplicationTest {
  static final EmbeddedPostgresServer POSTGRES = EmbeddedPostgresServer.start(null, false);
  static final EmbeddedRedisServer REDIS = EmbeddedRedisServer.start(null);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry properties) {
    properties.add("spring.datasource.url", () -> POSTGRES.jdbcUrl("postgres"));
    properties.add("spring.datasource.username", () -> "postgres");
    properties.add("punctual.redis.url", REDIS::url);
  }

  @Autowired MockMvc http;
  @Autowired JdbcTemplate jdbc;

  private MvcResult postOrder(String sku, int quantity, int expectedStatus) throws Exception {
    return http.perform(
            post("/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}"))
        .andExpect(status().is(expectedStatus))
        .andReturn();
  }

  private String jobStatus(UUID id) {
    return jdbc.queryForList("SELECT status FROM jobs WHERE id = ?", String.class, id).stream()
        .findFirst()
        .orElse(null);
  }

  @Test
  void anOrderPlacedIsCommittedAndConfirmedByItsJob() throws Exception {
    String body = postOrder("widget", 2, 201).getResponse().getContentAsString();
    long orderId = Long.parseLong(body.replaceAll(".*\"orderId\":(\\d+).*", "$1"));
    UUID jobId = UUID.fromString(body.replaceAll(".*\"jobId\":\"([^\"]+)\".*", "$1"));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                jdbc.queryForObject(
                    "SELECT confirmed_at IS NOT NULL FROM orders WHERE id = ?",
                    Boolean.class,
                    orderId));
    await().atMost(Duration.ofSeconds(5)).until(() -> "SUCCEEDED".equals(jobStatus(jobId)));
    assertThat(jdbc.queryForObject("SELECT count(*) FROM job_executions WHERE job_id = ?",
            Long.class, jobId))
        .isEqualTo(1);

    // The worker's meters, tagged, on Actuator's Prometheus endpoint.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> prometheus().contains("punctual_jobs_finished_total{"));
    assertThat(prometheus())
        .containsPattern(
            "punctual_jobs_finished_total\\{[^}]*outcome=\"succeeded\"[^}]*type=\"order.confirm\"[^}]*} [1-9]")
        .contains("punctual_jobs_start_lag_seconds_count{")
        .contains("punctual_jobs_running ")
        .contains("punctual_jobs_queued{");
  }

  private String prometheus() throws Exception {
    return http.perform(get("/actuator/prometheus"))
        .andExpect(status().isOk())
        .andReturn()
        .getResponse()
        .getContentAsString();
  }

  @Test
  void anOrderRefusedAfterItsInsertLeavesNoOrderAndNoJob() throws Exception {
    long ordersBefore = jdbc.queryForObject("SELECT count(*) FROM orders", Long.class);
    long jobsBefore = jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class);

    // More than the stock: the order's row and its job were written, then rolled back.
    postOrder("widget", 1_000, 409);

    assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Long.class))
        .isEqualTo(ordersBefore);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class)).isEqualTo(jobsBefore);
    assertThat(jdbc.queryForObject("SELECT available FROM stock WHERE sku = 'widget'", Integer.class))
        .isGreaterThan(0);
  }

  /**
   * Closing the application while a handler runs lets it finish (within {@code
   * punctual.worker.shutdown-grace}): no attempt is left RUNNING for a reaper to rescue.
   */
  @Test
  void closingTheApplicationLeavesNoRunningAttempt() {
    SlowHandler slow = new SlowHandler();
    UUID id;
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(OrdersApplication.class)
            .web(WebApplicationType.NONE)
            .initializers(c -> c.getBeanFactory().registerSingleton("slowHandler", slow))
            // Arguments, as on a command line, come before application.yml.
            .run(
                "--spring.datasource.url=" + POSTGRES.jdbcUrl("postgres"),
                "--spring.datasource.username=postgres",
                "--punctual.redis.url=" + REDIS.url(),
                "--punctual.namespace=closing")) {
      id = app.getBean(TransactionalJobs.class).submit(JobRequest.builder(SlowHandler.TYPE).build());
      await().atMost(Duration.ofSeconds(10)).until(slow.started::get);
    } // closed here, the handler still sleeping
    assertThat(slow.finished.get()).isTrue();
    assertThat(jobStatus(id)).isEqualTo("SUCCEEDED");
    assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs WHERE status = 'RUNNING'", Long.class))
        .isZero();
  }

  /** A handler that takes a second: still running when its application is closed. */
  static final class SlowHandler implements JobHandler {
    static final String TYPE = "test.slow";
    final AtomicBoolean started = new AtomicBoolean();
    final AtomicBoolean finished = new AtomicBoolean();

    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      started.set(true);
      Thread.sleep(1_000);
      finished.set(true);
      return JobResult.success();
    }
  }
}
