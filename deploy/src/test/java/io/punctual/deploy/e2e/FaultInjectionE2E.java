package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.embedded.FreePorts;
import io.punctual.faults.CrashPoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Punctual's promise under faults, with real processes and real servers: PostgreSQL and Redis (each
 * its own OS process, restartable on the same port), the API, a reaper and workers started from the
 * distribution jar, and a callback server whose log is the handlers' side effects. A mixed load
 * runs (immediate, delayed, retried and long-running {@code http} jobs, plus a steady trickle of
 * single submits) while, in turn: a worker is killed with SIGKILL mid-handler; Redis is flushed,
 * then restarted without persistence; PostgreSQL is restarted (the API answers 503 problem+json
 * meanwhile); an API dies right after committing a job, before enqueueing it; a worker is paused
 * with SIGSTOP until its attempts are rescued, and resumed. Before any fault, a normal run must
 * show no duplicate, no lost attempt and no refused completion. Each fault is checked to have
 * played out (the killed worker's attempts recorded LOST, the promoter's queue rebuilds counted on
 * the processes' admin /metrics, every refusal of a single submit a 503 problem+json, each
 * surviving worker claiming again after PostgreSQL is back, the paused worker's completions refused
 * by the attempt fence). A checker then reads PostgreSQL and the side-effect log; the figures are
 * printed at the end and written to target/fault-injection-report.txt.
 */
// The longest suites start first, so the short ones fill in beside them (deploy/pom.xml).
@Order(3)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class FaultInjectionE2E {
  private static final Duration START = Duration.ofMinutes(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * Fast failure detection so the faults play out in seconds (knobs: docs/configuration.md). The
   * leases still outlive a death's detection ({@code leaseTtl - heartbeatInterval > livenessTtl + 5
   * s}), so that young claims are held unwritten as with the defaults.
   */
  private static final String CONFIG =
      """
      queue:
        promoterInterval: PT0.2S
      postgres:
        connectionTimeout: PT2S
      worker:
        heartbeatInterval: PT0.5S
        leaseTtl: PT12S
        shutdownGrace: PT5S
        maxIdleWait: PT1S
        concurrency: 64
      reaper:
        interval: PT0.5S
        rescueAfter: PT13S
        reconcileAfter: PT2S
      """;

  @TempDir Path tmp;
  private final List<PunctualProcess> processes = new ArrayList<>();
  private final Map<String, String> env = new LinkedHashMap<>();
  private Path config;
  private int logs;
  private String api;
  private SideEffectServer effects;
  private EmbeddedPostgresServer postgres;
  private EmbeddedRedisServer redis;
  private String jdbcUrl;

  /** Ids the API answered 201 for: Punctual owes each of them a final state. */
  private final Set<UUID> accepted = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** What the single submits (the trickle, and the probes of the outage) were answered. */
  private final Map<String, AtomicInteger> answers = new java.util.concurrent.ConcurrentHashMap<>();

  private final Map<PunctualProcess, Integer> adminPorts = new HashMap<>();
  private final Map<String, Object> report =
      java.util.Collections.synchronizedMap(new LinkedHashMap<>());

  @Test
  void everyAcceptedJobReachesOneFinalStateThroughEveryFault() throws Exception {
    effects = SideEffectServer.start();
    Path pgData = tmp.resolve("pg");
    int pgPort = FreePorts.pick();
    postgres = EmbeddedPostgresServer.start(pgData, false, Map.of(), pgPort);
    postgres.createDatabaseIfMissing("punctual");
    jdbcUrl = postgres.jdbcUrl("punctual");
    redis = EmbeddedRedisServer.start(null);
    int redisPort = redis.port();
    config = tmp.resolve("fault.yml");
    Files.writeString(config, CONFIG);
    env.put("PUNCTUAL_DATABASE_URL", jdbcUrl);
    env.put("PUNCTUAL_REDIS_URL", redis.url());
    // The side-effect server listens on loopback, which callbacks may not reach unless allowed.
    env.put("PUNCTUAL_HTTP_ALLOW", "127.0.0.1/32");

    try {
      PunctualProcess migrate = start("migrate", Map.of(), "migrate");
      assertThat(migrate.awaitExit(START)).as(migrate.tail()).isZero();

      int apiPort = FreePorts.pick();
      PunctualProcess apiProcess =
          start(
              "api", Map.of("PUNCTUAL_HTTP_PORT", "" + apiPort, "PUNCTUAL_ADMIN_PORT", "0"), "api");
      PunctualProcess reaper = startAdminOnly("reaper");
      PunctualProcess worker1 = startAdminOnly("worker");
      PunctualProcess worker2 = startAdminOnly("worker");
      api = "http://127.0.0.1:" + apiPort;
      apiProcess.awaitOutput("(Punctual api is running)", START);
      awaitRegistered(worker1);
      awaitRegistered(worker2);
      reaper.awaitOutput("(Punctual reaper is running)", START);
      JobLoad.grantCallbackHost(api, effects.url());

      // 0. a normal run, no fault: no duplicate execution, no lost attempt, nothing refused
      normalRun(List.of(worker1, worker2));

      AtomicBoolean trickling = new AtomicBoolean(true);
      Thread trickle = Thread.ofVirtual().start(() -> trickle(trickling));

      // the mixed load
      submitBatch(jobs("quick", 150, 0));
      submitBatch(jobs("flaky", 40, 0));
      submitBatch(delayed(40));
      submitBatch(jobs("slow", 30, 3_000));

      // 1. kill -9 a worker in the middle of handlers (more slow jobs than both workers' slots, so
      // that each runs some; killed while one of them has just started)
      submitWorkflows(10);
      List<UUID> slow1 = submitBatch(jobs("slow", 150, 4_000));
      awaitRunning(worker1, slow1);
      worker1.kill();
      PunctualProcess worker3 = startAdminOnly("worker");
      awaitRegistered(worker3);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> lostAttemptsOf(worker1) > 0);
      report.put("attempts of the killed worker recorded LOST", lostAttemptsOf(worker1));
      List<PunctualProcess> promoters = List.of(reaper, worker2, worker3);

      // 2a. FLUSHALL; 2b. restart Redis (no persistence: everything in it is gone)
      submitBatch(delayed(20));
      long rebuilds = queueRebuilds(promoters);
      try (RedisClient client = RedisClient.create(redis.url());
          StatefulRedisConnection<String, String> c = client.connect()) {
        c.sync().flushall();
      }
      awaitQueueRebuilt(promoters, rebuilds, "after FLUSHALL");
      Thread.sleep(1_000);
      submitBatch(jobs("quick", 50, 0));
      rebuilds = queueRebuilds(promoters);
      redis.close();
      Thread.sleep(1_000);
      redis = EmbeddedRedisServer.start(null, redisPort);
      awaitQueueRebuilt(promoters, rebuilds, "after the Redis restart");
      submitBatch(delayed(20));

      // 3. restart PostgreSQL: the API answers 503 problem+json meanwhile
      postgres.close();
      JsonNode outage = awaitUnavailable();
      assertThat(outage.get("status").asInt()).isEqualTo(503);
      postgres = EmbeddedPostgresServer.start(pgData, false, Map.of(), pgPort);
      await()
          .atMost(START)
          .until(
              () -> {
                Answer answer = submitOne(job("quick", 0));
                return answer != null && answer.accepted();
              });
      awaitEachClaimsAgain(List.of(worker2, worker3));

      // 4. kill an API right after it commits a job (before it enqueues it in Redis)
      int doomedPort = FreePorts.pick();
      PunctualProcess doomed =
          start(
              "api-doomed",
              Map.of(
                  "PUNCTUAL_HTTP_PORT",
                  "" + doomedPort,
                  "PUNCTUAL_ADMIN_PORT",
                  "0",
                  CrashPoint.AFTER_COMMIT.variable(),
                  "1"),
              "api");
      doomed.awaitOutput("(Punctual api is running)", START);
      var doomedJob =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              JSON.readTree(job("quick", 0).toString());
      doomedJob.putArray("tags").add("doomed");
      Integer status =
          post("http://127.0.0.1:" + doomedPort + "/api/v1/jobs", doomedJob.toString());
      assertThat(status).as("the doomed API never answers").isNull();
      assertThat(doomed.awaitExit(Duration.ofSeconds(30))).isEqualTo(CrashPoint.EXIT_STATUS);
      UUID orphan = onlyJobNotAccepted();

      // 5. pause a worker (SIGSTOP) until its attempts are rescued, then resume it: its results
      // are refused
      List<UUID> slow2 = submitBatch(jobs("slow", 150, 5_000));
      awaitRunning(worker2, slow2);
      worker2.signal("STOP");
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> lostAttemptsOf(worker2) > 0);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError(
            "no attempt of the paused worker (pid "
                + worker2.pid()
                + ") was rescued; "
                + runningState()
                + "\n"
                + table("SELECT id, pid, running, heartbeat_at, stopped_at FROM workers")
                + table(
                    "SELECT worker_id, status, count(*) FROM job_executions GROUP BY 1, 2 ORDER BY 1, 2")
                + table(
                    "SELECT status, worker_id, count(*), max(attempt) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2"),
            e);
      }
      worker2.signal("CONT");

      trickling.set(false);
      trickle.join();

      // every job in PostgreSQL reaches a final state
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> count("SELECT count(*) FROM jobs WHERE finished_at IS NULL") == 0);
      // The resumed zombie tried to write: either its heartbeat (no longer the current attempt)
      // interrupted its handlers, whose CANCELLED completions the attempt number refused, or
      // their results came first and were refused. Both count in its fenceRefused meter. The
      // checker below shows that no stale result landed either way.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> meter(worker2, "punctual.worker.fenceRefused") > 0);
      report.put(
          "completions of the paused worker refused by the attempt fence",
          meter(worker2, "punctual.worker.fenceRefused"));

      checkAnswers();
      check(orphan);
    } finally {
      printReport();
      for (PunctualProcess p : processes) {
        if (p.isAlive()) {
          p.signal("CONT");
        }
        p.close();
      }
      effects.close();
      redis.close();
      postgres.close();
      keepLogs();
    }
  }

  /**
   * Prints the figures and writes them to target/fault-injection-report.txt (the build keeps test
   * output in files; the file is where to look after a run, whatever the console showed).
   */
  private void printReport() {
    Path file = Path.of("target", "fault-injection-report.txt").toAbsolutePath();
    StringBuilder text = new StringBuilder("fault-injection report:\n");
    synchronized (report) {
      report.forEach((k, v) -> text.append("  ").append(k).append(" = ").append(v).append('\n'));
    }
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      System.out.println(text + "(written to " + file + ")");
    } catch (IOException e) {
      System.out.println(text + "(could not write " + file + ": " + e + ")");
    }
  }

  /** Copies the processes' logs to target/fault-injection-logs for a look after the run. */
  private void keepLogs() {
    Path target = Path.of("target", "fault-injection-logs");
    try {
      Files.createDirectories(target);
      try (var logFiles = Files.list(tmp)) {
        for (Path log : logFiles.filter(p -> p.toString().endsWith(".log")).toList()) {
          Files.copy(
              log,
              target.resolve(log.getFileName()),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      System.out.println("could not keep the logs: " + e);
    }
  }

  // --- the checker

  /**
   * Every job in PostgreSQL and every side effect, by {@link FaultChecker}; the figures reported.
   */
  private void check(UUID orphan) throws SQLException {
    FaultChecker.Outcome o = new FaultChecker(jdbcUrl).checkEveryJob(accepted, effects.effects());
    long startedEarly =
        count(
            "SELECT count(*) FROM job_dependencies d"
                + " JOIN jobs j ON j.id = d.job_id AND j.scheduled_at = d.job_scheduled_at"
                + " JOIN jobs u ON u.id = d.depends_on_id"
                + " AND u.scheduled_at = d.depends_on_scheduled_at"
                + " WHERE j.started_at < u.finished_at");
    long lostSteps =
        count(
            "SELECT count(DISTINCT e.job_id) FROM job_executions e"
                + " JOIN jobs j ON j.id = e.job_id AND j.scheduled_at = e.job_scheduled_at"
                + " WHERE e.status = 'LOST' AND j.workflow_id IS NOT NULL");
    int notSucceeded = o.inPostgres() - o.succeeded();

    report.put("accepted (201)", o.accepted());
    report.put("jobs in PostgreSQL", o.inPostgres());
    report.put("jobs lost", o.missing());
    report.put("jobs not final", o.notFinal());
    report.put("jobs not SUCCEEDED", notSucceeded);
    report.put("final results from a stale attempt", o.staleResults());
    report.put(
        "SUCCEEDED without the side effect of the attempt that succeeded",
        o.succeededWithoutEffect());
    report.put("jobs with a lost attempt", o.jobsWithLostAttempt());
    report.put(
        "duplicate executions (jobs whose side effect happened more than once)", o.duplicates());
    report.put(
        "duplicates whose extra side effects all came from attempts recorded LOST",
        o.duplicatesExplained());
    report.put("workflow steps with a lost attempt", (int) lostSteps);
    report.put("workflow steps started before what they wait for ended", (int) startedEarly);
    if (!o.unexplained().isEmpty()) {
      // job status/attempt/worker/result attempt | each side effect's attempt@time | rows
      report.put(
          "duplicates not explained, the first 10",
          "\n    " + String.join("\n    ", o.unexplained()));
    }
    if (o.staleResults() > 0) {
      // What to look at when it fails: the first such jobs' rows and every attempt's row.
      report.put(
          "stale results, the first 10 jobs (job row | its attempts' rows)",
          table(
              "SELECT j.id, j.attempt, j.worker_id, j.started_at, j.finished_at, e.attempt,"
                  + " e.status, e.worker_id, e.started_at, e.finished_at FROM jobs j"
                  + " JOIN job_executions e ON e.job_id = j.id AND e.job_scheduled_at = j.scheduled_at"
                  + " WHERE j.id IN (SELECT j2.id FROM jobs j2 WHERE j2.status = 'SUCCEEDED'"
                  + " AND NOT EXISTS (SELECT 1 FROM job_executions x WHERE x.job_id = j2.id"
                  + " AND x.job_scheduled_at = j2.scheduled_at AND x.attempt = j2.attempt"
                  + " AND x.status = 'SUCCEEDED' AND x.worker_id = j2.worker_id)"
                  + " ORDER BY j2.id LIMIT 10) ORDER BY j.id, e.attempt"));
    }

    assertThat(o.missing()).as("jobs lost").isZero();
    assertThat(o.notFinal()).as("jobs not in a final state").isZero();
    assertThat(notSucceeded).as("every handler here eventually succeeds").isZero();
    assertThat(o.staleResults()).as("final results written by a stale attempt").isZero();
    assertThat(o.succeededWithoutEffect())
        .as("SUCCEEDED without the succeeding attempt's side effect")
        .isZero();
    assertThat(o.duplicates())
        .as("duplicate executions not explained by an attempt recorded LOST")
        .isEqualTo(o.duplicatesExplained());
    assertThat(startedEarly).as("workflow steps started before what they wait for ended").isZero();
    assertThat(count("SELECT count(*) FROM jobs WHERE id = '" + orphan + "'"))
        .as("the job committed by the API that died")
        .isEqualTo(1);
    assertThat(o.workersWithLostAttempt())
        .as("attempts lost on the killed and on the paused worker")
        .isGreaterThanOrEqualTo(2);
  }

  // --- the normal run

  /**
   * 200 mixed jobs (immediate, retried, long-running, delayed) before any fault: every one
   * SUCCEEDED, none ran twice, no attempt lost, no completion refused.
   */
  private void normalRun(List<PunctualProcess> workers) throws Exception {
    List<UUID> ids = new ArrayList<>();
    ids.addAll(submitBatch(jobs("quick", 100, 0)));
    ids.addAll(submitBatch(jobs("flaky", 40, 0)));
    ids.addAll(submitBatch(jobs("slow", 30, 1_000)));
    List<ObjectNodeBuilder> soon = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      soon.add(new ObjectNodeBuilder("quick", 0, "PT" + (1 + i % 3) + "S", effects.url()));
    }
    ids.addAll(submitBatch(soon));
    String in = String.join(",", ids.stream().map(id -> "'" + id + "'").toList());
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                count("SELECT count(*) FROM jobs WHERE finished_at IS NULL AND id IN (" + in + ")")
                    == 0);
    FaultChecker.Outcome o = new FaultChecker(jdbcUrl).check(ids, effects.effects());
    long succeeded = o.succeeded();
    long duplicates = o.duplicates();
    long lostAttempts = o.lostAttempts();
    long refused = 0;
    for (PunctualProcess w : workers) {
      refused += meter(w, "punctual.worker.fenceRefused");
    }
    report.put("normal run: jobs", ids.size());
    report.put("normal run: SUCCEEDED", succeeded);
    report.put("normal run: duplicate executions", duplicates);
    report.put("normal run: attempts recorded LOST", lostAttempts);
    report.put("normal run: completions refused by the attempt fence", refused);
    assertThat(succeeded).as("normal run: SUCCEEDED").isEqualTo(ids.size());
    assertThat(duplicates).as("normal run: duplicate executions").isZero();
    assertThat(lostAttempts).as("normal run: attempts recorded LOST").isZero();
    assertThat(refused).as("normal run: completions refused by the attempt fence").isZero();
  }

  // --- load

  private ObjectNodeBuilder job(String kind, int ms) {
    return new ObjectNodeBuilder(kind, ms, null, effects.url());
  }

  private List<ObjectNodeBuilder> jobs(String kind, int n, int ms) {
    List<ObjectNodeBuilder> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(job(kind, ms));
    }
    return out;
  }

  private List<ObjectNodeBuilder> delayed(int n) {
    List<ObjectNodeBuilder> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new ObjectNodeBuilder("quick", 0, "PT" + (3 + i % 20) + "S", effects.url()));
    }
    return out;
  }

  /** A job request body for the side-effect callback. */
  private record ObjectNodeBuilder(String kind, int ms, String delay, String callback) {
    @Override
    public String toString() {
      var node = JSON.createObjectNode();
      node.put("type", "http");
      node.putObject("payload").put("kind", kind).put("ms", ms);
      node.putObject("callback").put("url", callback);
      node.put("maxAttempts", 6);
      node.putObject("backoff").put("strategy", "fixed").put("delay", "PT1S");
      if (delay != null) {
        node.put("delay", delay);
      }
      return node.toString();
    }
  }

  private List<UUID> submitBatch(List<ObjectNodeBuilder> jobs)
      throws IOException, InterruptedException {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < jobs.size(); i++) {
      body.append(i == 0 ? "" : ",").append(jobs.get(i));
    }
    body.append("]}");
    HttpResponse<String> response = send(api + "/api/v1/jobs/batch", body.toString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    List<UUID> ids = new ArrayList<>();
    for (JsonNode item : JSON.readTree(response.body()).get("items")) {
      ids.add(UUID.fromString(item.get("id").asText()));
    }
    accepted.addAll(ids);
    return ids;
  }

  /**
   * Submits {@code n} workflows, each a chain slow (4 s) -> quick -> quick, so that the kill and
   * the pause that follow can catch a step whose later steps wait for it.
   */
  private void submitWorkflows(int n) throws IOException, InterruptedException {
    for (int i = 0; i < n; i++) {
      var body = JSON.createObjectNode();
      var steps = body.putArray("jobs");
      String[] refs = {"extract", "transform", "load"};
      for (int k = 0; k < refs.length; k++) {
        var step =
            (com.fasterxml.jackson.databind.node.ObjectNode)
                JSON.readTree(job(k == 0 ? "slow" : "quick", k == 0 ? 4_000 : 0).toString());
        step.put("ref", refs[k]);
        if (k > 0) {
          step.putArray("dependsOn").addObject().put("ref", refs[k - 1]);
        }
        steps.add(step);
      }
      HttpResponse<String> response = send(api + "/api/v1/workflows", body.toString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
      for (JsonNode step : JSON.readTree(response.body()).get("jobs")) {
        accepted.add(UUID.fromString(step.get("id").asText()));
      }
    }
  }

  private static final String ACCEPTED = "201";
  private static final String UNAVAILABLE = "503 problem+json";

  /**
   * Submits one job and tallies the answer: 201, 503 problem+json (a store is down: the client may
   * retry), any other status (must never happen: no 500), or no answer at all. Returns the answer
   * with its problem document, or null when none came.
   */
  private Answer submitOne(ObjectNodeBuilder job) {
    HttpResponse<String> response;
    try {
      response = send(api + "/api/v1/jobs", job.toString());
    } catch (IOException e) {
      tally("no answer");
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    int status = response.statusCode();
    String type = response.headers().firstValue("Content-Type").orElse("");
    try {
      JsonNode body = JSON.readTree(response.body());
      if (status == 201) {
        accepted.add(UUID.fromString(body.get("id").asText()));
        tally(ACCEPTED);
      } else if (status == 503
          && type.startsWith("application/problem+json")
          && body.path("status").asInt() == 503) {
        tally(UNAVAILABLE);
      } else {
        tally(status + " " + type + " " + abbreviate(response.body()));
      }
      return new Answer(status, body);
    } catch (IOException e) {
      tally(status + " " + type + " (not JSON) " + abbreviate(response.body()));
      return new Answer(status, null);
    }
  }

  private record Answer(int status, JsonNode body) {
    boolean accepted() {
      return status == 201;
    }
  }

  private void tally(String answer) {
    answers.computeIfAbsent(answer, k -> new AtomicInteger()).incrementAndGet();
  }

  private static String abbreviate(String body) {
    return body.length() <= 120 ? body : body.substring(0, 120) + "...";
  }

  /** A single submit every 50 ms for the whole run, whatever is failing at the moment. */
  private void trickle(AtomicBoolean running) {
    while (running.get()) {
      submitOne(job("quick", 0));
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Reports the single submits' answers; asserts that every refusal was a 503 problem+json. */
  private void checkAnswers() {
    Map<String, Integer> other = new java.util.TreeMap<>();
    answers.forEach(
        (answer, n) -> {
          if (!answer.equals(ACCEPTED)
              && !answer.equals(UNAVAILABLE)
              && !answer.equals("no answer")) {
            other.put(answer, n.get());
          }
        });
    report.put(
        "single submits accepted (201)", answers.getOrDefault(ACCEPTED, new AtomicInteger()).get());
    report.put(
        "single submits refused with 503 problem+json (outages)",
        answers.getOrDefault(UNAVAILABLE, new AtomicInteger()).get());
    report.put("single submits answered otherwise", other);
    report.put(
        "single submits without an answer",
        answers.getOrDefault("no answer", new AtomicInteger()).get());
    assertThat(answers.getOrDefault(UNAVAILABLE, new AtomicInteger()).get())
        .as("the PostgreSQL outage was answered 503 problem+json")
        .isPositive();
    assertThat(other).as("answers other than 201 and 503 problem+json (no 500)").isEmpty();
  }

  private JsonNode awaitUnavailable() {
    JsonNode[] problem = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              Answer answer = submitOne(job("quick", 0));
              if (answer != null && answer.status() == 503) {
                problem[0] = answer.body();
                return true;
              }
              return false;
            });
    return problem[0];
  }

  private static HttpResponse<String> send(String url, String body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(15))
            .header("Authorization", "Bearer " + PunctualProcess.BOOTSTRAP_KEY)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** The status of a POST, or null when the server closed the connection without answering. */
  private static Integer post(String url, String body) {
    try {
      return send(url, body).statusCode();
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  // --- processes and observations

  private PunctualProcess start(String name, Map<String, String> extra, String... args) {
    PunctualProcess p =
        PunctualProcess.startRole(
            tmp.resolve((++logs) + "-" + name + ".log"), env, extra, config, args);
    processes.add(p);
    return p;
  }

  private PunctualProcess startAdminOnly(String role) {
    int adminPort = FreePorts.pick();
    PunctualProcess p = start(role, Map.of("PUNCTUAL_ADMIN_PORT", "" + adminPort), role);
    adminPorts.put(p, adminPort);
    return p;
  }

  /** The process's admin /metrics (Dropwizard's JSON). */
  private JsonNode metrics(PunctualProcess p) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPorts.get(p) + "/metrics"))
              .timeout(Duration.ofSeconds(5))
              .GET()
              .build();
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private long meter(PunctualProcess p, String name) {
    return metrics(p).path("meters").path(name).path("count").asLong();
  }

  /**
   * How many times the promoters of these processes (a reaper's or a worker's: whichever holds the
   * promoter lease works) found the Redis queue lost and rebuilt it from PostgreSQL.
   */
  private long queueRebuilds(List<PunctualProcess> promoters) {
    long n = 0;
    for (PunctualProcess p : promoters) {
      JsonNode gauges = metrics(p).path("gauges");
      n += gauges.path("punctual.reaper.queueRebuilds").path("value").asLong();
      n += gauges.path("punctual.worker.queueRebuilds").path("value").asLong();
    }
    return n;
  }

  /** Waits for a promoter to rebuild the queue (not only the reconciler's re-queueing). */
  private void awaitQueueRebuilt(List<PunctualProcess> promoters, long before, String when) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> queueRebuilds(promoters) > before);
    report.put("queue rebuilt from PostgreSQL " + when, queueRebuilds(promoters) - before);
  }

  /**
   * After PostgreSQL restarted, each surviving worker claims jobs again: more long jobs than one
   * worker has slots, so that every worker must start some.
   */
  private void awaitEachClaimsAgain(List<PunctualProcess> workers) throws Exception {
    String since = dbNow();
    submitBatch(jobs("slow", 150, 500));
    for (PunctualProcess w : workers) {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  count(
                          "SELECT count(*) FROM (SELECT worker_id, started_at FROM jobs"
                              + " WHERE status = 'RUNNING' UNION ALL"
                              + " SELECT worker_id, started_at FROM job_executions) a"
                              + " JOIN workers w ON w.id = a.worker_id WHERE w.pid = "
                              + w.pid()
                              + " AND a.started_at > '"
                              + since
                              + "'")
                      > 0);
    }
    report.put("workers claiming again after the PostgreSQL restart", workers.size());
  }

  private String dbNow() throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT now()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void awaitRegistered(PunctualProcess worker) {
    await()
        .atMost(START)
        .pollInterval(Duration.ofMillis(200))
        .failFast("worker exited:\n" + worker.tail(), () -> !worker.isAlive())
        .until(() -> count("SELECT count(*) FROM workers WHERE pid = " + worker.pid()) == 1);
  }

  /**
   * Waits until {@code worker} runs one of {@code jobs} that started less than a second ago, so the
   * fault that follows catches it in the middle of its handler (not a job about to finish).
   */
  private void awaitRunning(PunctualProcess worker, List<UUID> jobs) {
    String ids = String.join(",", jobs.stream().map(id -> "'" + id + "'").toList());
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM jobs j JOIN workers w ON w.id = j.worker_id"
                            + " WHERE j.status = 'RUNNING' AND w.pid = "
                            + worker.pid()
                            + " AND j.started_at > now() - interval '1 second'"
                            + " AND j.id IN ("
                            + ids
                            + ")")
                    > 0);
  }

  private long lostAttemptsOf(PunctualProcess worker) {
    return count(
        "SELECT count(*) FROM job_executions e JOIN workers w ON w.id = e.worker_id"
            + " WHERE e.status = 'LOST' AND w.pid = "
            + worker.pid());
  }

  /** The job the doomed API committed and never answered for. */
  private UUID onlyJobNotAccepted() throws SQLException {
    List<UUID> doomed = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM jobs WHERE 'doomed' = ANY(tags)")) {
      while (rs.next()) {
        doomed.add(rs.getObject("id", UUID.class));
      }
    }
    assertThat(doomed).as("committed by the API that died").hasSize(1);
    assertThat(accepted).doesNotContain(doomed.get(0));
    return doomed.get(0);
  }

  /** What PostgreSQL and Redis say of the running attempts, for a failure message. */
  private String runningState() {
    StringBuilder out = new StringBuilder("running attempts:");
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT j.id, j.attempt, j.worker_id, w.pid, j.heartbeat_at, now() AS db_now"
                    + " FROM jobs j LEFT JOIN workers w ON w.id = j.worker_id"
                    + " WHERE j.status = 'RUNNING'");
        RedisClient client = RedisClient.create(redis.url());
        StatefulRedisConnection<String, String> r = client.connect()) {
      while (rs.next()) {
        String id = rs.getString("id");
        var keys = r.sync().keys("*lease:{" + id + "}");
        out.append("\n  ")
            .append(id)
            .append(" attempt=")
            .append(rs.getInt("attempt"))
            .append(" worker=")
            .append(rs.getString("worker_id"))
            .append(" pid=")
            .append(rs.getString("pid"))
            .append(" heartbeat=")
            .append(rs.getString("heartbeat_at"))
            .append(" now=")
            .append(rs.getString("db_now"))
            .append(" lease=")
            .append(
                keys.isEmpty()
                    ? "none"
                    : r.sync().get(keys.get(0)) + " pttl=" + r.sync().pttl(keys.get(0)));
      }
    } catch (Exception e) {
      out.append(" (could not read: ").append(e).append(')');
    }
    return out.toString();
  }

  private String table(String sql) {
    StringBuilder out = new StringBuilder(sql).append(':');
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        out.append("\n  ");
        for (int i = 1; i <= columns; i++) {
          out.append(rs.getString(i)).append(i < columns ? " | " : "");
        }
      }
    } catch (SQLException e) {
      out.append(" (failed: ").append(e).append(')');
    }
    return out.append('\n').toString();
  }

  private long count(String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }
}
