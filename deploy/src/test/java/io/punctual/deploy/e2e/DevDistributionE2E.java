package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.client.BackoffPolicy;
import io.punctual.client.ExecutionView;
import io.punctual.client.JobPage;
import io.punctual.client.JobRequest;
import io.punctual.client.JobStatus;
import io.punctual.client.JobView;
import io.punctual.client.PunctualApiException;
import io.punctual.client.PunctualClient;
import io.punctual.client.ScheduleRequest;
import io.punctual.client.ScheduleView;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user gets it: {@code java -jar deploy/target/punctual.jar dev} in its own
 * OS process (embedded PostgreSQL and Redis in a temporary data directory), driven over HTTP. Then
 * the other commands against the stores it started, an orderly stop, a restart that finds the data,
 * and a restart after SIGKILL that cleans up the servers the killed run left behind.
 */
// The longest suites start first, so the short ones fill in beside them (deploy/pom.xml).
@Order(4)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DevDistributionE2E {
  private static final Duration START = Duration.ofMinutes(2);
  private static final Duration JOB = Duration.ofSeconds(30);
  private static final Duration STOP = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private Path tmp;

  private Path dataDir;
  private PunctualProcess dev;
  private String apiBase;
  private String adminBase;
  private PunctualClient client;
  private int logs;
  private final List<PunctualProcess> started = new ArrayList<>();

  // Jobs checked again after the restarts.
  private JobView noop;
  private JobView cancelled;
  private JobView retried;

  @BeforeAll
  void startDev(@TempDir Path tmp) {
    this.tmp = tmp;
    dataDir = tmp.resolve("data");
    int http = FreePorts.pick();
    int admin = FreePorts.pick();
    dev = startDev(http, admin, "dev", "--fresh");
    apiBase = "http://localhost:" + http;
    adminBase = "http://127.0.0.1:" + admin; // the admin port listens on loopback only
    dev.awaitHealthy(adminBase + "/healthcheck", START);
    client = PunctualClient.create(URI.create(apiBase)).withApiKey(devAdminKey());
  }

  /**
   * The key dev wrote to dataDir/admin.key on its first start (mode 600), also shown in its banner.
   */
  private String devAdminKey() {
    try {
      Path file = dataDir.resolve("admin.key");
      String key = Files.readString(file).strip();
      assertThat(Files.getPosixFilePermissions(file))
          .containsExactlyInAnyOrder(
              java.nio.file.attribute.PosixFilePermission.OWNER_READ,
              java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
      assertThat(dev.output()).contains("Admin key    " + key);
      return key;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  @Order(0)
  void withoutTheAdminKeyTheApiAnswers401() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(apiBase + "/api/v1/jobs")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("WWW-Authenticate")).isPresent();
  }

  @AfterAll
  void stopEverything() {
    for (PunctualProcess p : started) {
      p.close();
    }
    killLeftovers();
  }

  @Test
  @Order(1)
  void printsTheUrlsItServes() {
    String out = dev.awaitOutput("Stop with Ctrl-C", Duration.ofSeconds(10));
    assertThat(out).isNotNull();
    assertThat(dev.output())
        .contains("API          " + apiBase + "/api/v1/jobs")
        .contains("Health       " + adminBase + "/healthcheck")
        .containsPattern("PostgreSQL   jdbc:postgresql://127\\.0\\.0\\.1:\\d+/punctual")
        .containsPattern("Redis        redis://127\\.0\\.0\\.1:\\d+");
    assertThat(healthcheck(adminBase)).containsKeys("postgres", "redis");
  }

  @Test
  @Order(2)
  void noopJobSucceeds() {
    JobView submitted = client.submit(JobRequest.builder("noop").build());
    assertThat(submitted.status()).isEqualTo(JobStatus.PENDING);

    noop = awaitFinal(submitted.id());
    assertThat(noop.status()).isEqualTo(JobStatus.SUCCEEDED);
    assertThat(noop.attempts()).isEqualTo(1);
    assertThat(client.executions(noop.id()))
        .extracting(ExecutionView::status)
        .containsExactly("SUCCEEDED");
  }

  @Test
  @Order(3)
  void failingJobIsRetriedAfterItsBackoffAndSucceedsOnAttemptTwo() {
    JobView submitted =
        client.submit(
            JobRequest.builder("fail")
                .payload(Map.of("times", 1))
                .maxAttempts(3)
                .backoff(BackoffPolicy.fixed(Duration.ofMillis(200)))
                .build());

    retried = awaitFinal(submitted.id());
    assertThat(retried.status()).isEqualTo(JobStatus.SUCCEEDED);
    assertThat(retried.attempts()).isEqualTo(2);
    List<ExecutionView> executions = client.executions(retried.id());
    assertThat(executions).extracting(ExecutionView::attempt).containsExactly(1, 2);
    assertThat(executions).extracting(ExecutionView::status).containsExactly("FAILED", "SUCCEEDED");
    assertThat(executions.get(0).error()).contains("planned failure");
    assertThat(executions.get(1).startedAt())
        .isAfterOrEqualTo(executions.get(0).finishedAt().plusMillis(150));
  }

  @Test
  @Order(4)
  void delayedJobStartsNoEarlierThanItsRunAt() {
    JobView submitted =
        client.submit(JobRequest.builder("noop").delay(Duration.ofSeconds(1)).build());
    assertThat(Duration.between(submitted.createdAt(), submitted.runAt()))
        .isBetween(Duration.ofMillis(900), Duration.ofSeconds(2));

    JobView done = awaitFinal(submitted.id());
    assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
    ExecutionView execution = client.executions(done.id()).get(0);
    assertThat(execution.startedAt()).isAfterOrEqualTo(submitted.runAt());
  }

  @Test
  @Order(5)
  void farFutureJobCanBeCancelled() {
    JobView submitted =
        client.submit(JobRequest.builder("noop").delay(Duration.ofHours(1)).build());
    cancelled = client.cancel(submitted.id());
    assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
    assertThat(client.get(submitted.id()).status()).isEqualTo(JobStatus.CANCELLED);
    assertThatThrownBy(() -> client.cancel(submitted.id()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(409));
  }

  @Test
  @Order(6)
  void invalidRequestIsA422ProblemNamingTheField() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(apiBase + "/api/v1/jobs"))
                    .timeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + devAdminKey())
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"type\":\"noop\",\"priority\":\"urgent\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(422);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    JsonNode problem = JSON.readTree(response.body());
    assertThat(problem.path("status").asInt()).isEqualTo(422);
    assertThat(problem.path("errors").get(0).path("field").asText()).isEqualTo("priority");
  }

  @Test
  @Order(7)
  void batchOfJobsAllRun() {
    List<JobView> batch =
        client.submitBatch(
            List.of(
                JobRequest.builder("noop").tags("batch").build(),
                JobRequest.builder("sleep").payload(Map.of("ms", 50)).tags("batch").build(),
                JobRequest.builder("noop").tags("batch").build()));
    assertThat(batch).hasSize(3);
    for (JobView job : batch) {
      assertThat(awaitFinal(job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    }
  }

  @Test
  @Order(8)
  void aScheduleFiringEverySecondRunsEachOccurrenceOnce() {
    assertThat(dev.output()).contains("Schedules    " + apiBase + "/api/v1/schedules");
    ScheduleView tick =
        client.createSchedule(ScheduleRequest.every("tick", Duration.ofSeconds(1), "noop").build());
    await()
        .atMost(JOB)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> jobsOf(tick.id(), JobStatus.SUCCEEDED).size() >= 5);

    ScheduleView paused = client.pauseSchedule(tick.id()); // cancels the look-ahead's jobs
    assertThat(paused.isPaused()).isTrue();
    await()
        .atMost(JOB)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> jobsOf(tick.id(), null).stream().allMatch(j -> j.status().isFinal()));

    List<JobView> jobs = jobsOf(tick.id(), null);
    List<Instant> occurrences = jobs.stream().map(JobView::occurrenceAt).sorted().toList();
    assertThat(occurrences).doesNotHaveDuplicates().doesNotContainNull();
    List<JobView> ran =
        jobs.stream()
            .filter(j -> j.status() != JobStatus.CANCELLED)
            .sorted(java.util.Comparator.comparing(JobView::occurrenceAt))
            .toList();
    assertThat(ran).hasSizeGreaterThanOrEqualTo(5);
    assertThat(ran).allSatisfy(j -> assertThat(j.status()).isEqualTo(JobStatus.SUCCEEDED));
    assertThat(ran).allSatisfy(j -> assertThat(j.attempts()).isEqualTo(1));
    assertThat(ran).allSatisfy(j -> assertThat(j.startedAt()).isAfterOrEqualTo(j.occurrenceAt()));
    // One job per second from the first fire time on, none missing, none twice.
    Instant first = ran.get(0).occurrenceAt();
    for (int i = 0; i < ran.size(); i++) {
      assertThat(ran.get(i).occurrenceAt()).isEqualTo(first.plusSeconds(i));
    }
    Instant lastRun = ran.get(ran.size() - 1).occurrenceAt();
    assertThat(jobs)
        .filteredOn(j -> j.status() == JobStatus.CANCELLED)
        .isNotEmpty()
        .allSatisfy(j -> assertThat(j.occurrenceAt()).isAfter(lastRun));

    assertThat(client.deleteSchedule(tick.id())).isZero(); // nothing left to cancel
    assertThat(client.get(ran.get(0).id()).status()).isEqualTo(JobStatus.SUCCEEDED);
  }

  private List<JobView> jobsOf(String scheduleId, JobStatus status) {
    List<JobView> out = new ArrayList<>();
    String cursor = null;
    do {
      JobPage page = client.scheduleJobs(scheduleId, status, 500, cursor);
      out.addAll(page.items());
      cursor = page.nextCursor();
    } while (cursor != null);
    return out;
  }

  @Test
  @Order(9)
  void otherCommandsWorkAgainstTheStoresDevStarted() {
    Map<String, String> stores =
        Map.of(
            "PUNCTUAL_DATABASE_URL",
            dev.awaitOutput("PostgreSQL   (jdbc:\\S+)", Duration.ofSeconds(5)),
            "PUNCTUAL_REDIS_URL",
            dev.awaitOutput("Redis        (redis:\\S+)", Duration.ofSeconds(5)));

    PunctualProcess migrate = track(PunctualProcess.start(nextLog("migrate"), stores, "migrate"));
    assertThat(migrate.awaitExit(STOP)).as(migrate.tail()).isZero();
    // dev applied every migration already, so this run finds the schema current.
    assertThat(migrate.output())
        .containsPattern("schema version \\d+ \\(0 migrations applied now\\)");

    PunctualProcess reaper =
        track(PunctualProcess.start(nextLog("reaper"), stores, "reaper", "--once"));
    assertThat(reaper.awaitExit(STOP)).as(reaper.tail()).isZero();
    assertThat(reaper.output()).contains("reaper pass:");

    PunctualProcess plannerOnce =
        track(PunctualProcess.start(nextLog("planner"), stores, "planner", "--once"));
    assertThat(plannerOnce.awaitExit(STOP)).as(plannerOnce.tail()).isZero();
    assertThat(plannerOnce.output()).contains("planner pass:");

    // A second API on random ports (port 0) sees the jobs the first one stored.
    Map<String, String> api = with(stores, "PUNCTUAL_HTTP_PORT", "0", "PUNCTUAL_ADMIN_PORT", "0");
    PunctualProcess apiRole = track(PunctualProcess.start(nextLog("api"), api, "api"));
    String apiUrl = apiRole.awaitOutput("API          (http://\\S+)/api/v1/jobs", START);
    apiRole.awaitHealthy(apiRole.awaitOutput("Health       (\\S+)", START), START);
    assertThat(
            PunctualClient.create(URI.create(apiUrl))
                .withApiKey(PunctualProcess.BOOTSTRAP_KEY)
                .get(noop.id())
                .status())
        .isEqualTo(JobStatus.SUCCEEDED);

    // A worker serves only its admin port, healthy while both stores answer.
    int workerAdmin = FreePorts.pick();
    PunctualProcess worker =
        track(
            PunctualProcess.start(
                nextLog("worker"),
                with(stores, "PUNCTUAL_ADMIN_PORT", Integer.toString(workerAdmin)),
                "worker"));
    worker.awaitHealthy("http://localhost:" + workerAdmin + "/healthcheck", START);
    assertThat(worker.output()).doesNotContain("API          ");
    assertThat(PunctualProcess.status("http://localhost:" + workerAdmin + "/metrics"))
        .isEqualTo(200);

    // So does a planner, alongside the one inside dev.
    int plannerAdmin = FreePorts.pick();
    PunctualProcess planner =
        track(
            PunctualProcess.start(
                nextLog("planner"),
                with(stores, "PUNCTUAL_ADMIN_PORT", Integer.toString(plannerAdmin)),
                "planner"));
    planner.awaitHealthy("http://localhost:" + plannerAdmin + "/healthcheck", START);
    assertThat(planner.output()).contains("Punctual planner is running");
    assertThat(planner.stop(STOP)).as(planner.tail()).isZero();
    assertThat(planner.output()).contains("planner stopped");

    assertThat(worker.stop(STOP)).as(worker.tail()).isZero();
    assertThat(worker.output()).contains("worker stopped");
    assertThat(apiRole.stop(STOP)).as(apiRole.tail()).isZero();
  }

  @Test
  @Order(10)
  void sigtermStopsWorkerStoresAndServersInOrderAndExitsZero() {
    long postgresPid = pidFrom(dataDir.resolve("postgres/postmaster.pid")).orElseThrow();
    long redisPid = pidFrom(dataDir.resolve("redis/punctual-redis.pid")).orElseThrow();

    assertThat(dev.stop(STOP)).as(dev.tail()).isZero();

    String out = dev.output();
    assertThat(out.indexOf("worker stopped")).isPositive();
    String shutdown = out.substring(out.indexOf("SIGTERM received, stopping"));
    assertThat(shutdown).doesNotContainPattern("(?m)^(WARN|ERROR) ").doesNotContain("Exception");
    assertThat(running(postgresPid)).as("postgres running").isFalse();
    assertThat(running(redisPid)).as("redis running").isFalse();
    assertThat(dataDir.resolve("postgres/postmaster.pid")).doesNotExist();
  }

  @Test
  @Order(11)
  void restartWithoutFreshKeepsTheJobs() {
    restartOnRandomPorts();

    assertThat(client.get(noop.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    assertThat(client.get(retried.id()).attempts()).isEqualTo(2);
    assertThat(client.executions(retried.id())).hasSize(2);
    assertThat(client.get(cancelled.id()).status()).isEqualTo(JobStatus.CANCELLED);
    JobView fresh = client.submit(JobRequest.builder("noop").build());
    assertThat(awaitFinal(fresh.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
  }

  @Test
  @Order(12)
  void restartAfterSigkillStopsTheServersTheKilledRunLeftBehind() {
    long orphanPostgres = pidFrom(dataDir.resolve("postgres/postmaster.pid")).orElseThrow();
    long orphanRedis = pidFrom(dataDir.resolve("redis/punctual-redis.pid")).orElseThrow();
    dev.kill();
    assertThat(running(orphanPostgres)).as("orphaned postgres running").isTrue();
    assertThat(running(orphanRedis)).as("orphaned redis running").isTrue();

    restartOnRandomPorts();

    assertThat(dev.output()).contains("left running by an earlier punctual dev");
    assertThat(running(orphanPostgres)).as("orphaned postgres running").isFalse();
    assertThat(running(orphanRedis)).as("orphaned redis running").isFalse();
    assertThat(client.get(noop.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    assertThat(dev.stop(STOP)).as(dev.tail()).isZero();
  }

  // --- helpers

  private void restartOnRandomPorts() {
    dev = startDev(0, 0, "dev");
    apiBase = dev.awaitOutput("API          (http://\\S+)/api/v1/jobs", START);
    adminBase = dev.awaitOutput("Health       (http://\\S+)/healthcheck", START);
    assertThat(apiBase).doesNotEndWith(":0");
    dev.awaitHealthy(adminBase + "/healthcheck", START);
    client = PunctualClient.create(URI.create(apiBase)).withApiKey(devAdminKey());
  }

  private PunctualProcess startDev(int http, int admin, String... args) {
    Map<String, String> env =
        Map.of(
            "PUNCTUAL_DATA_DIR", dataDir.toString(),
            "PUNCTUAL_HTTP_PORT", Integer.toString(http),
            "PUNCTUAL_ADMIN_PORT", Integer.toString(admin),
            "PUNCTUAL_BOOTSTRAP_KEY", ""); // dev makes its own admin key: dataDir/admin.key
    return track(PunctualProcess.start(nextLog("dev"), env, args));
  }

  private PunctualProcess track(PunctualProcess process) {
    started.add(process);
    return process;
  }

  private Path nextLog(String name) {
    return tmp.resolve((++logs) + "-" + name + ".log");
  }

  private JobView awaitFinal(String id) {
    JobView[] last = new JobView[1];
    await()
        .atMost(JOB)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              last[0] = client.get(id);
              return last[0].status().isFinal();
            });
    return last[0];
  }

  private static Map<String, JsonNode> healthcheck(String adminBase) {
    try {
      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(adminBase + "/healthcheck")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Map<String, JsonNode> checks = new java.util.HashMap<>();
      JSON.readTree(body).properties().forEach(e -> checks.put(e.getKey(), e.getValue()));
      return checks;
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static Map<String, String> with(Map<String, String> base, String... keyValues) {
    Map<String, String> env = new java.util.HashMap<>(base);
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  /**
   * Whether the process runs: alive and not a zombie (in a container whose pid 1 does not reap, a
   * server that exited after its parent died stays a zombie, which {@link ProcessHandle#isAlive()}
   * counts as alive).
   */
  private static boolean running(long pid) {
    if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return !state.equals("Z") && !state.equals("X");
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<Long> pidFrom(Path file) {
    try {
      String first = Files.readAllLines(file, StandardCharsets.UTF_8).get(0).trim();
      return Optional.of(Long.parseLong(first));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Ends servers a failed test may have left (their pids are in the data directory). */
  private void killLeftovers() {
    if (dataDir == null) {
      return;
    }
    for (Path pidFile :
        List.of(
            dataDir.resolve("postgres/postmaster.pid"),
            dataDir.resolve("redis/punctual-redis.pid"))) {
      pidFrom(pidFile)
          .flatMap(ProcessHandle::of)
          .filter(ProcessHandle::isAlive)
          .filter(
              p -> {
                String command = p.info().command().orElse("");
                return command.contains("postgres") || command.contains("redis-server");
              })
          .ifPresent(
              p -> {
                p.destroy();
                try {
                  p.onExit().get(20, TimeUnit.SECONDS);
                } catch (Exception e) {
                  p.destroyForcibly();
                }
              });
    }
  }
}
