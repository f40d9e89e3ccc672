package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.cluster.SlotHash;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.FreePorts;
import io.punctual.embedded.LocalRedisCluster;
import io.punctual.model.Priority;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.redis.RedisKeys;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole fleet on a real Redis Cluster (3 masters, 3 replicas) with each namespace's queue in 3
 * shards: the API (submits over REST, near-term jobs straight into Redis, later ones through the
 * promoter), the cron-planner (a schedule firing every second), a worker and the reaper, each its
 * own process of the runnable jar; a master fails over to its replica mid-run. Every job the API
 * accepted ends SUCCEEDED, and each occurrence of the schedule has one job, which ran once.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ClusterStackE2E {
  private static final Duration START = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int SHARDS = 3;

  private static final String CONFIG =
      """
      redis:
        queueShards: 3
      queue:
        horizon: PT5S
        promoterSlack: PT2S
        promoterInterval: PT0.2S
      worker:
        heartbeatInterval: PT0.5S
        leaseTtl: PT3S
        shutdownGrace: PT5S
        maxIdleWait: PT1S
        concurrency: 32
      reaper:
        interval: PT0.5S
        rescueAfter: PT5S
        reconcileAfter: PT2S
      """;

  @TempDir Path tmp;
  private final List<PunctualProcess> processes = new ArrayList<>();
  private final Map<String, String> env = new HashMap<>();
  private LocalRedisCluster cluster;
  private EmbeddedPostgresServer postgres;
  private String jdbcUrl;
  private Path config;
  private String api;
  private int logs;

  @AfterEach
  void stop() {
    for (PunctualProcess p : processes) {
      p.close();
    }
    // the processes' logs, for a failure's diagnosis
    try (var files = Files.list(tmp)) {
      Path kept = Files.createDirectories(Path.of("target", "cluster-stack-logs"));
      for (Path log : files.filter(p -> p.toString().endsWith(".log")).toList()) {
        Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.out.println("could not keep the logs: " + e);
    }
    if (cluster != null) {
      cluster.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void everyAcceptedJobAndEachOccurrenceRunsOnceOnAShardedClusterThroughAFailover()
      throws Exception {
    cluster = LocalRedisCluster.start();
    postgres = EmbeddedPostgresServer.start(tmp.resolve("pg"), false, Map.of(), FreePorts.pick());
    postgres.createDatabaseIfMissing("punctual");
    jdbcUrl = postgres.jdbcUrl("punctual");
    config = tmp.resolve("cluster.yml");
    Files.writeString(config, CONFIG);
    env.put("PUNCTUAL_DATABASE_URL", jdbcUrl);
    env.put("PUNCTUAL_REDIS_CLUSTER", String.join(",", cluster.seeds()));

    PunctualProcess migrate = start("migrate", Map.of(), "migrate");
    assertThat(migrate.awaitExit(START)).as(migrate.tail()).isZero();
    int apiPort = FreePorts.pick();
    api = "http://127.0.0.1:" + apiPort;
    PunctualProcess apiProcess =
        start("api", Map.of("PUNCTUAL_HTTP_PORT", "" + apiPort, "PUNCTUAL_ADMIN_PORT", "0"), "api");
    Map<PunctualProcess, Integer> admin = new HashMap<>();
    for (String role : List.of("worker", "planner", "reaper")) {
      int port = FreePorts.pick();
      admin.put(start(role, Map.of("PUNCTUAL_ADMIN_PORT", "" + port), role), port);
    }
    apiProcess.awaitOutput("(Punctual api is running)", START);
    for (var e : admin.entrySet()) {
      e.getKey().awaitHealthy("http://127.0.0.1:" + e.getValue() + "/healthcheck", START);
    }

    // A schedule firing every second, for the whole run.
    HttpResponse<String> created =
        post(
            "/api/v1/schedules",
            "{\"name\":\"every-second\",\"every\":\"PT1S\",\"misfire\":\"fire_all\","
                + "\"type\":\"noop\"}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String scheduleId = JSON.readTree(created.body()).get("id").asText();
    Instant scheduleFrom = Instant.now();

    // Submits over REST for 15 s: due now and in 2 s (into Redis at once, the horizon being 5 s)
    // and in 8 s (through the promoter); the master of shard 1's queue fails over at 6 s.
    RedisKeys keys = new RedisKeys(new RedisSettings().keyPrefix, SHARDS);
    int shard1Slot = SlotHash.getSlot(keys.queue("default", Priority.NORMAL, 1));
    Set<UUID> accepted = ConcurrentHashMap.newKeySet();
    Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    String[] delays = {"PT0S", "PT2S", "PT8S"};
    Instant end = Instant.now().plusSeconds(15);
    int[] failoverTo = {-1};
    // The failover runs beside the submits (it waits until the cluster agrees on it).
    Thread failover =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    Thread.sleep(6_000);
                  } catch (InterruptedException e) {
                    return;
                  }
                  failoverTo[0] = cluster.failover(cluster.masterOf(shard1Slot));
                });
    int i = 0;
    while (Instant.now().isBefore(end)) {
      HttpResponse<String> r =
          post(
              "/api/v1/jobs",
              "{\"type\":\"noop\",\"delay\":\"" + delays[i++ % delays.length] + "\"}");
      answers.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
      if (r.statusCode() == 201) {
        accepted.add(UUID.fromString(JSON.readTree(r.body()).get("id").asText()));
      } else {
        assertThat(r.statusCode()).as(r.body()).isBetween(501, 599);
      }
      Thread.sleep(20);
    }
    failover.join(Duration.ofSeconds(60));
    assertThat(failoverTo[0]).as("the failover happened").isPositive();
    assertThat(cluster.masterOf(shard1Slot)).isEqualTo(failoverTo[0]);
    HttpResponse<String> paused = post("/api/v1/schedules/" + scheduleId + "/pause", "");
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
    Instant scheduleTo = Instant.now();
    assertThat(accepted.size()).as("accepted %s", answers).isGreaterThanOrEqualTo(10);

    // Every accepted job SUCCEEDED, once.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .failFast("a process exited", () -> processes.stream().skip(1).anyMatch(p -> !p.isAlive()))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM jobs WHERE status NOT IN ('SUCCEEDED',"
                            + " 'CANCELLED')")
                    == 0);
    Map<String, Long> byStatus = new HashMap<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT status, count(*) FROM jobs WHERE schedule_id IS NULL GROUP BY status")) {
      while (rs.next()) {
        byStatus.put(rs.getString(1), rs.getLong(2));
      }
    }
    assertThat(byStatus).containsExactly(Map.entry("SUCCEEDED", (long) accepted.size()));
    assertThat(
            count(
                "SELECT count(*) FROM job_executions e JOIN jobs j ON j.id = e.job_id"
                    + " WHERE j.schedule_id IS NULL AND e.status = 'SUCCEEDED'"))
        .isEqualTo(accepted.size());
    // a job ran more than once only where an attempt of it was recorded LOST
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT job_id FROM job_executions GROUP BY job_id"
                    + " HAVING count(*) > 1 AND count(*) FILTER (WHERE status = 'LOST') = 0) d"))
        .isZero();

    // The schedule: every fire time from the first to the last is planned once (the primary key
    // of schedule_occurrences makes a second impossible; no gap: none was left out), each as a
    // job (fire_all: a late planner catches up rather than skipping), one job per occurrence;
    // those that started ran once to SUCCEEDED (the pause cancels those planned ahead).
    String occurrences = " FROM schedule_occurrences WHERE schedule_id = '" + scheduleId + "'";
    String ofSchedule = " FROM jobs WHERE schedule_id = '" + scheduleId + "'";
    String table =
        rows(
            "SELECT o.fire_at, o.outcome, j.status FROM schedule_occurrences o LEFT JOIN jobs j"
                + " ON j.id = o.job_id WHERE o.schedule_id = '"
                + scheduleId
                + "' ORDER BY o.fire_at");
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT fire_at - lag(fire_at) OVER (ORDER BY fire_at) AS"
                    + " gap"
                    + occurrences
                    + ") g WHERE gap <> interval '1 second'"))
        .as(table)
        .isZero();
    assertThat(count("SELECT count(*)" + occurrences + " AND outcome <> 'job'")).as(table).isZero();
    assertThat(count("SELECT count(*) - count(DISTINCT occurrence_at)" + ofSchedule))
        .as(table)
        .isZero();
    long succeeded = count("SELECT count(*)" + ofSchedule + " AND status = 'SUCCEEDED'");
    long seconds = Duration.between(scheduleFrom, scheduleTo).toSeconds();
    // every second of the run had its run (the planner plans ahead, so a fire time or two past
    // the pause may have started before it)
    assertThat(succeeded).as(table).isGreaterThanOrEqualTo(seconds - 1);
    // nothing of the schedule was claimed once the pause was answered: a job claimed before it,
    // up to worker.claimAhead (at most a second) ahead of its run_at, starts at its run_at
    assertThat(
            count(
                "SELECT count(*) FROM job_executions e JOIN jobs j ON j.id = e.job_id"
                    + " WHERE j.schedule_id = '"
                    + scheduleId
                    + "' AND e.started_at > '"
                    + scheduleTo.plusSeconds(1)
                    + "'::timestamptz"))
        .as(table)
        .isZero();
    assertThat(
            count(
                "SELECT count(*)"
                    + ofSchedule
                    + " AND status NOT IN ('SUCCEEDED',"
                    + " 'CANCELLED')"))
        .isZero();
    // the occurrences planned ahead were cancelled by the pause before they started
    assertThat(
            count(
                "SELECT count(*) FROM job_executions e JOIN jobs j ON j.id = e.job_id"
                    + " WHERE j.schedule_id = '"
                    + scheduleId
                    + "' AND j.status = 'CANCELLED'"))
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM job_executions e JOIN jobs j ON j.id = e.job_id"
                    + " WHERE j.schedule_id = '"
                    + scheduleId
                    + "'"))
        .isEqualTo(succeeded);

    System.out.printf(
        "ClusterStackE2E: accepted %d (answers %s), schedule %d occurrences run in %d s%n",
        accepted.size(), answers, succeeded, seconds);
  }

  private long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private String rows(String sql) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= columns; i++) {
          out.append(i > 1 ? " " : "").append(rs.getString(i));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(api + path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + PunctualProcess.BOOTSTRAP_KEY)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private PunctualProcess start(String name, Map<String, String> extra, String... args) {
    PunctualProcess p =
        PunctualProcess.startRole(
            tmp.resolve((++logs) + "-" + name + ".log"), env, extra, config, args);
    processes.add(p);
    return p;
  }
}
