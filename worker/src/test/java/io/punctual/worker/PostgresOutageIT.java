package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.queue.Stores;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TcpProxy;
import io.punctual.worker.config.WorkerSettings;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker cut off from PostgreSQL (through a proxy) while the reaper, still connected, runs its
 * passes: for longer than the lease TTL and than {@code rescueAfter}, so the heartbeat in
 * PostgreSQL goes stale and only the Redis lease tells the reaper the attempt is alive. No attempt
 * may be rescued because the database was away: the job ends SUCCEEDED on attempt 1, no LOST row.
 */
class PostgresOutageIT {
  private static final Duration LEASE_TTL = Duration.ofSeconds(2);
  private static final Duration OUTAGE = LEASE_TTL.multipliedBy(3);

  private final WorkerHarness harness = new WorkerHarness();
  private final TcpProxy proxy = proxyTo(harness.postgres);
  private final Stores workerStores =
      new Stores(
          throughProxy(harness.postgres, proxy),
          harness.redis,
          harness.queueSettings,
          Clock.systemUTC(),
          "worker-behind-proxy");
  private final ReaperSettings reaperSettings = reaperSettings();
  private final Reaper reaper =
      new Reaper(harness.stores, reaperSettings, new MetricRegistry(), "reaper-outage-it");
  private final GatedHandler handler = new GatedHandler();
  private Worker worker;

  @AfterEach
  void close() {
    handler.release.countDown();
    proxy.restore();
    if (worker != null) {
      worker.close();
    }
    reaper.close();
    workerStores.close();
    proxy.close();
    harness.close();
  }

  private static TcpProxy proxyTo(PostgresSettings postgres) {
    URI uri = URI.create(postgres.url.substring("jdbc:".length()));
    return TcpProxy.start(uri.getHost(), uri.getPort());
  }

  private static PostgresSettings throughProxy(PostgresSettings direct, TcpProxy proxy) {
    URI uri = URI.create(direct.url.substring("jdbc:".length()));
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + proxy.port()
            + uri.getRawPath()
            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    PostgresSettings settings = new PostgresSettings(url, direct.user, direct.password);
    settings.maxPoolSize = 4;
    settings.connectionTimeout = Duration.ofMillis(500);
    return settings;
  }

  private static ReaperSettings reaperSettings() {
    ReaperSettings s = new ReaperSettings();
    s.rescueAfter = Duration.ofSeconds(1);
    s.reconcileAfter = Duration.ofSeconds(1);
    return s;
  }

  private void startWorker() {
    WorkerSettings settings = WorkerHarness.settings();
    settings.leaseTtl = LEASE_TTL;
    settings.heartbeatInterval = Duration.ofMillis(200);
    worker =
        new Worker(
            workerStores,
            settings,
            harness.builtIns(settings).register(handler),
            new MetricRegistry());
    worker.start();
  }

  /** Runs reaper passes for {@code d}; returns how many attempts they rescued. */
  private int reaperPassesFor(Duration d) throws InterruptedException {
    int rescued = 0;
    Instant end = Instant.now().plus(d);
    while (Instant.now().isBefore(end)) {
      rescued += reaper.runOnce().rescued();
      Thread.sleep(100);
    }
    return rescued;
  }

  private Job awaitSucceededWhileReaping(Job job) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              reaper.runOnce();
              return harness.find(job).status() == JobState.SUCCEEDED;
            });
    return harness.find(job);
  }

  private void assertRanOnceAndSucceededOnAttempt1(Job job, Job done) {
    assertThat(done.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(1);
    assertThat(handler.runs.get()).as("the handler ran once").isEqualTo(1);
    assertThat(harness.executions(job))
        .extracting(Execution::attempt, Execution::status)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, ExecutionStatus.SUCCEEDED));
  }

  /** The heartbeat in PostgreSQL is older than rescueAfter: only the lease keeps the reaper off. */
  private void assertHeartbeatStale(Job job) {
    Job now = harness.find(job);
    assertThat(now.status()).isEqualTo(JobState.RUNNING);
    assertThat(now.attempt()).isEqualTo(1);
    assertThat(now.heartbeatAt()).isBefore(Instant.now().minus(reaperSettings.rescueAfter));
    assertThat(harness.stores.redlock().isHeld(job.id())).as("its lease").isTrue();
  }

  @Test
  void aResultHeldThroughAnOutageLongerThanTheLeaseIsWrittenAndNotRescued() throws Exception {
    startWorker();
    Job job = harness.submit(aJob().type(GatedHandler.TYPE).maxAttempts(3).build());
    assertThat(handler.started.await(10, TimeUnit.SECONDS)).isTrue();
    harness.awaitState(job, JobState.RUNNING); // its claim written (worker.claimWriteAfter)

    proxy.refuse();
    handler.release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 0);

    assertThat(reaperPassesFor(OUTAGE)).as("attempts rescued during the outage").isZero();
    assertHeartbeatStale(job);

    proxy.restore();
    assertRanOnceAndSucceededOnAttempt1(job, awaitSucceededWhileReaping(job));
  }

  @Test
  void leasesAreRenewedWhileTheHeartbeatHangsOnAStalledConnection() throws Exception {
    startWorker();
    Job job = harness.submit(aJob().type(GatedHandler.TYPE).maxAttempts(3).build());
    assertThat(handler.started.await(10, TimeUnit.SECONDS)).isTrue();
    harness.awaitState(job, JobState.RUNNING); // its claim written (worker.claimWriteAfter)

    // Bytes stop flowing: the heartbeat's statement hangs (no error, no timeout) for the outage.
    proxy.stall();
    assertThat(reaperPassesFor(OUTAGE)).as("attempts rescued during the outage").isZero();
    assertHeartbeatStale(job);
    handler.release.countDown();
    assertThat(reaperPassesFor(LEASE_TTL.multipliedBy(2))).isZero();

    proxy.restore();
    assertRanOnceAndSucceededOnAttempt1(job, awaitSucceededWhileReaping(job));
  }

  /** Starts, then waits for the test's go before it succeeds. */
  static final class GatedHandler implements JobHandler {
    static final String TYPE = "gated";
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger runs = new AtomicInteger();

    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      runs.incrementAndGet();
      started.countDown();
      release.await();
      return JobResult.success();
    }
  }
}
