package io.punctual.worker;

import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Backoff;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.model.Upstream;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.reaper.DeathWatch;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import io.punctual.reaper.Rescuer;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A chain extract -> compile -> publish whose first step's worker, a real worker in a process of
 * its own ({@link DoomedWorkerMain}), is killed with SIGKILL while its handler runs: no graceful
 * shutdown, no result, the lease left to expire. The reaper's Rescuer revives the attempt once the
 * worker is silent and its lease gone, and a second worker runs the whole chain to SUCCEEDED, each
 * step only after the one it depends on ended.
 */
class KilledWorkerChainIT {
  private final PostgresSettings postgres = TestStores.get().newDatabase();
  private final RedisSettings redis = TestRedis.newRedis();
  private final Stores stores =
      new Stores(postgres, redis, new QueueSettings(), Clock.systemUTC(), "killed-worker-test");
  private final ReaperSettings reaperSettings = new ReaperSettings();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private Process doomed;

  @AfterEach
  void close() throws Exception {
    if (doomed != null && doomed.isAlive()) {
      doomed.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    for (AutoCloseable c : toClose) {
      c.close();
    }
    stores.close();
  }

  /** One run of a step by the second worker: which job, when it started and ended. */
  private record Run(UUID jobId, Instant started, Instant ended) {}

  private Job find(Job job) {
    return stores.queries().find(job.namespace(), job.id()).orElseThrow();
  }

  private List<Execution> executions(Job job) {
    return stores.queries().executions(job.namespace(), job.id());
  }

  /** A doomed worker whose claims are written at once (PT0S) and whose leases last 2 s. */
  private Process startDoomedWorker(String workerId, Path log) throws IOException {
    return startDoomedWorker(workerId, log, Duration.ofSeconds(2), Duration.ZERO);
  }

  private Process startDoomedWorker(
      String workerId, Path log, Duration leaseTtl, Duration claimWriteAfter) throws IOException {
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
            DoomedWorkerMain.class.getName(),
            postgres.url,
            postgres.user,
            postgres.password,
            redis.url,
            redis.keyPrefix,
            workerId,
            leaseTtl.toString(),
            claimWriteAfter.toString()));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void aChainWhoseRunningDependencyIsKilledCompletesAfterTheReaperRevivesIt() throws Exception {
    stores.partitions().ensureAhead();
    List<Job> chain =
        stores
            .submissions()
            .submit(
                List.of(
                    aJob()
                        .type("step")
                        .runAt(Instant.now())
                        .maxAttempts(3)
                        .backoff(new Backoff.Fixed(Duration.ofMillis(100)))
                        .build(),
                    aJob().type("step").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
                    aJob().type("step").waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build()))
            .stream()
            .map(Submitted::job)
            .toList();
    Job extract = chain.get(0);
    Job compile = chain.get(1);
    Job publish = chain.get(2);
    stores
        .queue()
        .enqueue(
            List.of(
                new QueueEntry(
                    extract.id(), extract.namespace(), extract.priority(), extract.runAt())));

    // 1. A real worker process takes extract and is killed in the middle of its handler.
    String doomedId = "doomed-" + UUID.randomUUID().toString().substring(0, 8);
    Path log =
        Files.createDirectories(Path.of("target", "doomed-workers")).resolve(doomedId + ".log");
    doomed = startDoomedWorker(doomedId, log);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> read(log).contains("started " + extract.id()));
    Job running = find(extract);
    assertThat(running.status()).isEqualTo(JobState.RUNNING);
    assertThat(running.workerId()).isEqualTo(doomedId);
    doomed.destroyForcibly();
    assertThat(doomed.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(doomed.exitValue()).as("killed, not shut down: 128 + SIGKILL").isEqualTo(137);
    assertThat(find(extract).status()).as("nobody reported for it").isEqualTo(JobState.RUNNING);
    assertThat(find(compile).status()).isEqualTo(JobState.BLOCKED);
    assertThat(find(publish).status()).isEqualTo(JobState.BLOCKED);

    // 2. A second worker; the reaper revives extract once it is silent and its lease is gone.
    List<Run> runs = new CopyOnWriteArrayList<>();
    JobHandler step =
        new JobHandler() {
          @Override
          public String type() {
            return "step";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            Instant started = Instant.now();
            Thread.sleep(50);
            runs.add(new Run(ctx.jobId(), started, Instant.now()));
            return JobResult.success();
          }
        };
    WorkerSettings settings = new WorkerSettings();
    settings.workerId = "survivor-" + UUID.randomUUID().toString().substring(0, 8);
    settings.heartbeatInterval = Duration.ofMillis(200);
    settings.leaseTtl = Duration.ofSeconds(5);
    settings.maxIdleWait = Duration.ofMillis(500);
    Worker survivor =
        new Worker(stores, settings, new JobHandlers().register(step), new MetricRegistry());
    toClose.add(survivor);
    survivor.start();
    reaperSettings.rescueAfter = Duration.ofSeconds(1);
    Rescuer rescuer =
        new Rescuer(stores.clock(), Reaper.rescueStores(stores), reaperSettings, new Random(7));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> rescuer.runOnce() == 1);

    // 3. The whole chain completes, each step after the one it depends on ended.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> find(publish).status() == JobState.SUCCEEDED);

    assertThat(runs)
        .extracting(Run::jobId)
        .containsExactly(extract.id(), compile.id(), publish.id());
    assertThat(runs.get(1).started()).isAfterOrEqualTo(runs.get(0).ended());
    assertThat(runs.get(2).started()).isAfterOrEqualTo(runs.get(1).ended());

    Job extracted = find(extract);
    assertThat(extracted.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(extracted.attempt()).isEqualTo(2);
    List<Execution> attempts = executions(extract);
    assertThat(attempts).extracting(Execution::attempt).containsExactly(1, 2);
    assertThat(attempts.get(0).status()).isEqualTo(ExecutionStatus.LOST);
    assertThat(attempts.get(0).workerId()).isEqualTo(doomedId);
    assertThat(attempts.get(1).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
    assertThat(attempts.get(1).workerId()).isEqualTo(settings.workerId);

    Job compiled = find(compile);
    Job published = find(publish);
    for (Job dependent : List.of(compiled, published)) {
      assertThat(executions(dependent))
          .as("ran once, on the survivor")
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
                assertThat(e.workerId()).isEqualTo(settings.workerId);
              });
    }
    assertThat(compiled.startedAt()).isAfterOrEqualTo(extracted.finishedAt());
    assertThat(published.startedAt()).isAfterOrEqualTo(compiled.finishedAt());
  }

  @Test
  void aKilledWorkersAttemptRunsAgainWithinSecondsThroughTheDeathWatch() throws Exception {
    killedWorkersAttemptRunsAgainWithinSeconds(Duration.ofSeconds(2), Duration.ZERO);
  }

  /**
   * Killed with its claim read but not written (worker.claimWriteAfter): its row is PENDING and its
   * lease would hold it for 30 s; the death watch finds it in the worker's held claims.
   */
  @Test
  void aKilledWorkersUnwrittenClaimRunsAgainWithinSecondsRecordedLost() throws Exception {
    killedWorkersAttemptRunsAgainWithinSeconds(Duration.ofSeconds(30), Duration.ofSeconds(1));
  }

  private void killedWorkersAttemptRunsAgainWithinSeconds(
      Duration leaseTtl, Duration claimWriteAfter) throws Exception {
    stores.partitions().ensureAhead();
    Job job =
        stores
            .submissions()
            .submit(List.of(aJob().type("step").runAt(Instant.now()).maxAttempts(3).build()))
            .get(0)
            .job();
    stores
        .queue()
        .enqueue(List.of(new QueueEntry(job.id(), job.namespace(), job.priority(), job.runAt())));
    String doomedId = "doomed-" + UUID.randomUUID().toString().substring(0, 8);
    Path log =
        Files.createDirectories(Path.of("target", "doomed-workers")).resolve(doomedId + ".log");
    doomed = startDoomedWorker(doomedId, log, leaseTtl, claimWriteAfter);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> read(log).contains("started " + job.id()));
    assertThat(find(job).status())
        .as("the claim is written at once, or not within the window")
        .isEqualTo(claimWriteAfter.isZero() ? JobState.RUNNING : JobState.PENDING);

    CopyOnWriteArrayList<Instant> started = new CopyOnWriteArrayList<>();
    JobHandler step =
        new JobHandler() {
          @Override
          public String type() {
            return "step";
          }

          @Override
          public JobResult handle(JobContext ctx) {
            started.add(Instant.now());
            return JobResult.success();
          }
        };
    WorkerSettings settings = new WorkerSettings();
    settings.workerId = "survivor-" + UUID.randomUUID().toString().substring(0, 8);
    Worker survivor =
        new Worker(stores, settings, new JobHandlers().register(step), new MetricRegistry());
    toClose.add(survivor);
    survivor.start();
    MetricRegistry reaperMetrics = new MetricRegistry();
    // The default rescueAfter (60 s): only the death watch can rescue it within this test's bounds.
    DeathWatch watch = Reaper.deathWatch(stores, reaperSettings, reaperMetrics);

    doomed.destroyForcibly();
    Instant killed = Instant.now();
    assertThat(doomed.waitFor(10, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              watch.runOnce();
              return !started.isEmpty();
            });

    assertThat(Duration.between(killed, started.get(0)))
        .as("running again elsewhere within 10 s of the kill")
        .isLessThan(Duration.ofSeconds(10));
    await().until(() -> find(job).status() == JobState.SUCCEEDED);
    List<Execution> attempts = executions(job);
    assertThat(attempts)
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.LOST, ExecutionStatus.SUCCEEDED);
    assertThat(attempts.get(0).workerId()).isEqualTo(doomedId);
    assertThat(observations(reaperMetrics, "punctual_worker_death_to_rescue_seconds")).isEqualTo(1);
  }

  /** Observations of an unlabelled histogram of {@link JobMetrics} in {@code metrics}. */
  private static long observations(MetricRegistry metrics, String name) {
    for (var m : JobMetrics.of(metrics).registry().scrape()) {
      if (m.getMetadata().getName().equals(name)
          && m instanceof io.prometheus.metrics.model.snapshots.HistogramSnapshot h) {
        return h.getDataPoints().stream().mapToLong(d -> d.getCount()).sum();
      }
    }
    return 0;
  }
}
