package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.embedded.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling deploy's worker stop on real processes: {@code punctual worker} is sent SIGTERM while
 * it runs handlers that outlast its {@code shutdownGrace}. It must exit 0 having handed their
 * attempts back: each job PENDING again at once (no reaper runs here, so nothing else could move
 * it), its attempt recorded HANDED_BACK, its attempts not used up (submitted with one attempt, it
 * still runs); a second worker then runs them to SUCCEEDED.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HandoffE2E {
  private static final Duration START = Duration.ofMinutes(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int JOBS = 6;

  private static final String CONFIG =
      """
      queue:
        promoterInterval: PT0.2S
      worker:
        heartbeatInterval: PT0.5S
        shutdownGrace: PT1S
        maxIdleWait: PT1S
        concurrency: 16
      """;

  @TempDir Path tmp;
  private final Map<String, String> env = new LinkedHashMap<>();
  private final List<PunctualProcess> processes = new ArrayList<>();
  private String jdbcUrl;
  private Path config;
  private int logs;

  @Test
  void aWorkerStoppedWithHandlersRunningHandsTheirAttemptsBackAtOnce() throws Exception {
    EmbeddedPostgresServer postgres =
        EmbeddedPostgresServer.start(tmp.resolve("pg"), false, Map.of(), FreePorts.pick());
    EmbeddedRedisServer redis = EmbeddedRedisServer.start(null);
    try {
      postgres.createDatabaseIfMissing("punctual");
      jdbcUrl = postgres.jdbcUrl("punctual");
      config = tmp.resolve("handoff.yml");
      Files.writeString(config, CONFIG);
      env.put("PUNCTUAL_DATABASE_URL", jdbcUrl);
      env.put("PUNCTUAL_REDIS_URL", redis.url());

      PunctualProcess migrate = start("migrate", Map.of(), "migrate");
      assertThat(migrate.awaitExit(START)).as(migrate.tail()).isZero();
      int apiPort = FreePorts.pick();
      PunctualProcess api =
          start(
              "api", Map.of("PUNCTUAL_HTTP_PORT", "" + apiPort, "PUNCTUAL_ADMIN_PORT", "0"), "api");
      PunctualProcess first = startWorker();
      api.awaitOutput("(Punctual api is running)", START);
      awaitRegistered(first);

      List<UUID> ids = submit("http://127.0.0.1:" + apiPort, 4_000);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> count("SELECT count(*) FROM jobs WHERE status = 'RUNNING'") == JOBS);

      long stopping = System.nanoTime();
      assertThat(first.stop(Duration.ofSeconds(30))).as(first.tail()).isZero();
      long stopMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);

      // The grace (1 s), then the hand-back: well before the handlers' 4 s, and no reaper ran.
      assertThat(stopMs).as("the worker's stop").isLessThan(4_000);
      assertThat(count("SELECT count(*) FROM jobs WHERE status = 'PENDING' AND attempt = 1"))
          .isEqualTo(JOBS);
      assertThat(count("SELECT count(*) FROM jobs WHERE max_attempts = 2")).isEqualTo(JOBS);
      assertThat(
              count(
                  "SELECT count(*) FROM jobs WHERE run_at > now() - interval '10 seconds'"
                      + " AND run_at <= now()"))
          .as("due at once")
          .isEqualTo(JOBS);
      assertThat(count("SELECT count(*) FROM job_executions WHERE status = 'HANDED_BACK'"))
          .isEqualTo(JOBS);
      assertThat(first.output()).contains("attempt handed back");

      PunctualProcess second = startWorker();
      awaitRegistered(second);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'") == JOBS);
      assertThat(
              count(
                  "SELECT count(*) FROM job_executions WHERE attempt = 2 AND status = 'SUCCEEDED'"))
          .isEqualTo(JOBS);
      assertThat(count("SELECT count(*) FROM job_executions WHERE status = 'LOST'")).isZero();
      assertThat(ids).hasSize(JOBS);
    } finally {
      for (int i = processes.size() - 1; i >= 0; i--) {
        processes.get(i).close();
      }
      redis.close();
      postgres.close();
    }
  }

  private List<UUID> submit(String api, int ms) throws Exception {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < JOBS; i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"type\":\"sleep\",\"payload\":{\"ms\":")
          .append(ms)
          .append("},\"maxAttempts\":1}");
    }
    body.append("]}");
    var response = JobLoad.send(api + "/api/v1/jobs/batch", body.toString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    List<UUID> ids = new ArrayList<>();
    for (JsonNode item : JSON.readTree(response.body()).get("items")) {
      ids.add(UUID.fromString(item.get("id").asText()));
    }
    return ids;
  }

  private PunctualProcess startWorker() {
    return start("worker", Map.of("PUNCTUAL_ADMIN_PORT", "" + FreePorts.pick()), "worker");
  }

  private PunctualProcess start(String name, Map<String, String> extra, String... args) {
    PunctualProcess p =
        PunctualProcess.startRole(
            tmp.resolve((++logs) + "-" + name + ".log"), env, extra, config, args);
    processes.add(p);
    return p;
  }

  private void awaitRegistered(PunctualProcess worker) {
    await()
        .atMost(START)
        .pollInterval(Duration.ofMillis(200))
        .failFast("worker exited:\n" + worker.tail(), () -> !worker.isAlive())
        .until(
            () ->
                count(
                        "SELECT count(*) FROM workers WHERE pid = "
                            + worker.pid()
                            + " AND stopped_at IS NULL")
                    == 1);
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
