package io.punctual.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.client.JobRequest;
import io.punctual.model.JobState;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job committed whose enqueue never happened (the application died between its commit and {@code
 * enqueue()}, or never called it) still runs, once: a reaper's reconciler finds the PENDING job
 * missing from Redis once it has been due {@code reaper.reconcileAfter}, within a pass ({@code
 * reaper.interval}) more. The embedded worker alone does not: its promoter only looks ahead of its
 * cursor.
 */
class LostEnqueueIT {
  private EmbeddedHarness app;
  private RecordingHandler handler;
  private Stores reaperStores;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() {
    app = new EmbeddedHarness();
    handler = new RecordingHandler("invoice.send");
    app.startWorker(app.worker().handler(handler));
    // The promoter's first pass reads everything pending; only a job committed after it has moved
    // its cursor past now is one the worker alone never sees.
    await().atMost(Duration.ofSeconds(10)).until(app::promoterCursorWritten);
    reaperStores =
        new Stores(app.postgres, app.redis, new QueueSettings(), Clock.systemUTC(), "reaper");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    reaperStores.close();
    app.close();
  }

  private UUID commitWithoutEnqueue() throws Exception {
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      UUID id = app.jobs.submit(c, JobRequest.builder("invoice.send").build()).id();
      c.commit();
      return id; // enqueue() never called
    }
  }

  @Test
  void theWorkerAloneLeavesItTheReapersReconcilerRunsIt() throws Exception {
    UUID id = commitWithoutEnqueue();
    Thread.sleep(3_000); // the worker claims, promotes and polls meanwhile
    assertThat(app.status(id)).isEqualTo(JobState.PENDING);
    assertThat(app.queued(id)).isZero();
    assertThat(handler.runs).isEmpty();

    ReaperSettings settings = new ReaperSettings();
    settings.reconcileAfter = Duration.ofSeconds(1); // due 3 s ago: missing, not in flight
    Reaper reaper = new Reaper(reaperStores, settings, new MetricRegistry(), "reaper-test");
    assertThat(reaper.runOnce().repairs().enqueued()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> app.status(id) == JobState.SUCCEEDED);
    assertThat(handler.runsOf(id)).isEqualTo(1);
  }

  /**
   * The application killed ({@code kill -9}) right after its commit; a reaper running with the
   * default settings: the job starts within reconcileAfter + interval (+ one pass) of its commit.
   */
  @Test
  void anApplicationKilledBetweenCommitAndEnqueueStillRunsItsJobWithinTheBound() throws Exception {
    ReaperSettings defaults = new ReaperSettings();
    Reaper reaper = new Reaper(reaperStores, defaults, new MetricRegistry(), "reaper-test");
    reaper.start();
    toClose.add(reaper);

    Process doomed = startDoomedApp();
    toClose.add(() -> doomed.destroyForcibly().waitFor(10, TimeUnit.SECONDS));
    UUID id;
    Instant committed;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(doomed.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("committed ")) {
        // its start-up log
      }
      assertThat(line).as("the application committed its job").isNotNull();
      committed = Instant.now();
      id = UUID.fromString(line.substring("committed ".length()).trim());
      doomed.destroyForcibly(); // SIGKILL: nothing after the commit runs
      assertThat(doomed.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(doomed.exitValue()).as("killed: 128 + SIGKILL").isEqualTo(137);
    assertThat(app.status(id)).isEqualTo(JobState.PENDING);

    Duration bound = defaults.reconcileAfter.plus(defaults.interval);
    await()
        .atMost(bound.plusSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> handler.runsOf(id) == 1);
    Duration took = Duration.between(committed, handler.runs.get(0).startedAt());
    System.out.printf(
        "commit -> handler start without enqueue: %d ms (bound %s + %s)%n",
        took.toMillis(), defaults.reconcileAfter, defaults.interval);
    assertThat(took).isGreaterThanOrEqualTo(defaults.reconcileAfter.minusMillis(100));
    assertThat(took).isLessThanOrEqualTo(bound.plusSeconds(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> app.status(id) == JobState.SUCCEEDED);
    assertThat(handler.runs).hasSize(1);
  }

  private Process startDoomedApp() throws java.io.IOException {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(
        List.of(
            "-Xmx256m",
            "-cp",
            classPath,
            CommitThenHangMain.class.getName(),
            app.postgres.url,
            app.postgres.user,
            app.postgres.password,
            app.redis.url,
            app.redis.keyPrefix));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }
}
