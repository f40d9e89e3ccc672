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
import io.punctual.queue.CancelNotice;
import io.punctual.queue.testing.TestStack;
import io.punctual.reaper.DeathWatch;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import io.punctual.store.JobTransitions.CancelResult;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Claims held unwritten ({@code worker.claimWriteAfter}) against real PostgreSQL and Redis: a quick
 * attempt writes claim and end together; one that outlives the window is RUNNING in PostgreSQL
 * under its worker; a cancel reaches an attempt whose claim is not written, by its notice or by the
 * refused write; and a worker that dies holding such claims has them rescued by the death watch
 * within seconds, recorded LOST, long before their leases would expire.
 */
class UnwrittenClaimsIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = longLeases(WorkerHarness.settings());
  private final JobHandlers handlers = harness.builtIns(settings);

  /** Leases that outlive a death's detection: claims are held unwritten only then. */
  private static WorkerSettings longLeases(WorkerSettings s) {
    s.leaseTtl = Duration.ofSeconds(30);
    s.claimWriteAfter = Duration.ofMillis(250);
    return s;
  }

  @AfterEach
  void close() {
    harness.close();
  }

  /** Waits until released; notes an interruption and ends by it. */
  static final class Holding implements JobHandler {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    volatile long interruptedNanos;

    @Override
    public String type() {
      return "holding";
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        interruptedNanos = System.nanoTime();
        interrupted.set(true);
        throw e;
      }
      return JobResult.success();
    }
  }

  /**
   * Starts this test's worker (claims written after 1 s) and one {@code holding} attempt on it,
   * running with its claim not written yet.
   */
  private Job holdUnwritten(Holding holding) throws InterruptedException {
    settings.claimWriteAfter = Duration.ofSeconds(1);
    handlers.register(holding);
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("holding").build());
    assertThat(holding.started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(harness.find(job).status()).as("claim not written yet").isEqualTo(JobState.PENDING);
    return job;
  }

  private List<String> heldSet() {
    return List.copyOf(
        harness
            .stores
            .redis()
            .sync()
            .smembers(harness.stores.keys().heldClaims(settings.workerId)));
  }

  /** The job's one execution row: attempt 1, {@code status}, this test's worker. */
  private void assertOnlyAttemptOne(Job job, ExecutionStatus status) {
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.status()).isEqualTo(status);
              assertThat(e.workerId()).isEqualTo(settings.workerId);
            });
  }

  @Test
  void aQuickAttemptEndsWithItsClaimAndLeavesNothingHeld() {
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("noop").build());

    Job done = harness.awaitState(job, JobState.SUCCEEDED);

    assertThat(done.attempt()).isEqualTo(1);
    assertThat(done.workerId()).isEqualTo(settings.workerId);
    assertThat(done.startedAt()).isNotNull();
    assertOnlyAttemptOne(job, ExecutionStatus.SUCCEEDED);
    await().atMost(Duration.ofSeconds(3)).until(() -> heldSet().isEmpty());
  }

  @Test
  void anAttemptThatOutlivesTheWindowIsRunningInPostgresUnderItsWorker() throws Exception {
    settings.claimWriteAfter = Duration.ofMillis(200);
    Holding holding = new Holding();
    handlers.register(holding);
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("holding").build());
    assertThat(holding.started.await(5, TimeUnit.SECONDS)).isTrue();
    long started = System.nanoTime();

    Job running = harness.awaitState(job, JobState.RUNNING, Duration.ofSeconds(2));

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    assertThat(running.attempt()).isEqualTo(1);
    assertThat(running.workerId()).isEqualTo(settings.workerId);
    assertThat(running.heartbeatAt()).isNotNull();
    await().atMost(Duration.ofSeconds(2)).until(() -> heldSet().isEmpty());
    // Heartbeats go on for it as for any written attempt.
    Instant firstBeat = running.heartbeatAt();
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> harness.find(job).heartbeatAt().isAfter(firstBeat));

    holding.release.countDown();
    Job done = harness.awaitState(job, JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(1);
    assertThat(holding.interrupted).isFalse();
    assertThat(harness.executions(job)).extracting(Execution::attempt).containsExactly(1);
  }

  @Test
  void aCancelNoticeStopsAnAttemptWhoseClaimIsNotWritten() throws Exception {
    Holding holding = new Holding();
    Job job = holdUnwritten(holding);

    CancelResult.Cancelled c =
        (CancelResult.Cancelled) harness.stores.transitions().cancel("default", job.id());
    assertThat(c.previous()).isEqualTo(JobState.PENDING);
    long sent = System.nanoTime();
    // As the API announces a cancel of a PENDING job: for the attempt a worker may hold.
    harness
        .stores
        .queue()
        .announceCancelsAsync(
            List.of(new CancelNotice(job.id(), c.job().attempt() + 1, c.job().updatedAt())))
        .join();

    await().atMost(Duration.ofSeconds(1)).untilTrue(holding.interrupted);
    assertThat(Duration.ofNanos(holding.interruptedNanos - sent))
        .isLessThan(Duration.ofMillis(900));
    await().atMost(Duration.ofSeconds(3)).until(() -> harness.executions(job).size() == 1);
    assertThat(harness.find(job).status()).isEqualTo(JobState.CANCELLED);
    assertThat(harness.executions(job).get(0).status()).isEqualTo(ExecutionStatus.CANCELLED);
  }

  @Test
  void aCancelWithoutNoticeStopsTheAttemptWhenItsClaimsWriteIsRefused() throws Exception {
    settings.claimWriteAfter = Duration.ofMillis(300);
    settings.heartbeatInterval = Duration.ofSeconds(10);
    settings.leaseTtl = Duration.ofSeconds(60);
    Holding holding = new Holding();
    handlers.register(holding);
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("holding").build());
    assertThat(holding.started.await(5, TimeUnit.SECONDS)).isTrue();

    assertThat(harness.stores.transitions().cancel("default", job.id()))
        .isInstanceOf(CancelResult.Cancelled.class);

    await().atMost(Duration.ofSeconds(2)).untilTrue(holding.interrupted);
    assertThat(harness.find(job).status()).isEqualTo(JobState.CANCELLED);
    await().atMost(Duration.ofSeconds(3)).until(() -> heldSet().isEmpty());
  }

  @Test
  void anAttemptHandedBackBeforeItsClaimIsWrittenIsRecordedAndKeepsItsAttempt() throws Exception {
    settings.claimWriteAfter = Duration.ofSeconds(1);
    Holding holding = new Holding();
    handlers.register(holding);
    Worker worker = harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("holding").maxAttempts(1).build());
    assertThat(holding.started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);

    // As a remote worker's session hands back an attempt its worker never took.
    assertThat(worker.stopAttempt(job.id(), io.punctual.worker.run.StopReason.SHUTDOWN)).isTrue();

    await()
        .atMost(Duration.ofSeconds(3))
        .until(
            () ->
                harness.executions(job).stream()
                    .anyMatch(e -> e.status() == ExecutionStatus.HANDED_BACK));
    Execution handed = harness.executions(job).get(0);
    assertThat(handed.attempt()).isEqualTo(1);
    assertThat(handed.workerId()).isEqualTo(settings.workerId);
    assertThat(harness.find(job).maxAttempts()).as("the handoff used up no attempt").isEqualTo(2);
  }

  @Test
  void aDeadWorkersUnwrittenClaimsAreRescuedWithinSecondsAndRecordedLost() throws Exception {
    settings.leaseTtl = Duration.ofSeconds(60);
    Holding holding = new Holding();
    Job job = diesHoldingUnwritten(holding);
    Instant died = Instant.now();
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    assertThat(heldSet()).containsExactly(job.id().toString());
    assertThat(harness.stores.redlock().isHeld(job.id())).isTrue();

    DeathWatch watch = deathWatch();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> watch.runOnce() > 0);

    assertThat(Duration.between(died, Instant.now())).isLessThan(Duration.ofSeconds(5));
    Job rescued = harness.find(job);
    assertThat(rescued.status()).isEqualTo(JobState.PENDING);
    assertThat(rescued.attempt()).as("the lost attempt is used up").isEqualTo(1);
    assertOnlyAttemptOne(job, ExecutionStatus.LOST);
    assertThat(harness.stores.redlock().isHeld(job.id())).as("lease released").isFalse();
    assertThat(heldSet()).isEmpty();

    // Another worker runs it now, as attempt 2.
    WorkerSettings other = WorkerHarness.settings();
    Holding quick = new Holding();
    quick.release.countDown();
    harness.start(other, harness.builtIns(other).register(quick));
    holding.release.countDown();
    Job done = harness.awaitState(job, JobState.SUCCEEDED, Duration.ofSeconds(10));
    assertThat(done.attempt()).isEqualTo(2);
    assertThat(done.workerId()).isEqualTo(other.workerId);
  }

  private DeathWatch deathWatch() {
    return Reaper.deathWatch(harness.stores, new ReaperSettings(), new MetricRegistry());
  }

  /**
   * This test's worker dies running one {@code holding} attempt whose claim is not written (claims
   * written after 1 s, a live-set entry of 600 ms); returns right after its death.
   */
  private Job diesHoldingUnwritten(Holding holding) throws InterruptedException {
    settings.claimWriteAfter = Duration.ofSeconds(1);
    settings.livenessInterval = Duration.ofMillis(200);
    settings.livenessTtl = Duration.ofMillis(600);
    handlers.register(holding);
    Worker doomed = harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("holding").maxAttempts(3).build());
    assertThat(holding.started.await(5, TimeUnit.SECONDS)).isTrue();
    // Dies as a killed process would: nothing more is written, its claim among them.
    doomed.abandon();
    return job;
  }

  @Test
  void aDeadWorkersUnwrittenClaimWhoseLeaseLapsedBeforeTheWatchIsStillRecordedLost()
      throws Exception {
    Holding holding = new Holding();
    Job job = diesHoldingUnwritten(holding);
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    // Its lease lapses before the watch's pass (a pass late on a loaded machine); nobody took it.
    // Left alone, the job would go to another worker under the same attempt number, and this
    // worker's run of it would be on record nowhere.
    harness.stores.redlock().release(List.of(job.id()), settings.workerId);

    DeathWatch watch = deathWatch();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> watch.runOnce() > 0);

    assertOnlyAttemptOne(job, ExecutionStatus.LOST);
    assertThat(harness.find(job).attempt()).as("the lost attempt is used up").isEqualTo(1);
    assertThat(harness.stores.redlock().isHeld(job.id())).as("lease released").isFalse();
    holding.release.countDown();
  }

  @Test
  void aDeadWorkersUnwrittenClaimLeasedByAnotherWorkerSinceIsLeftToIt() throws Exception {
    Holding holding = new Holding();
    Job job = diesHoldingUnwritten(holding);
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    harness.stores.redlock().release(List.of(job.id()), settings.workerId);
    assertThat(harness.stores.redlock().acquire(List.of(job.id()), "w-other", settings.leaseTtl))
        .containsExactly(job.id());

    DeathWatch watch = deathWatch();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              watch.runOnce();
              return heldSet().isEmpty(); // the dead worker buried, its held set with it
            });
    // Having written nothing in its name.
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    assertThat(harness.find(job).attempt()).isZero();
    assertThat(harness.executions(job)).isEmpty();
    assertThat(harness.stores.redlock().renew(List.of(job.id()), "w-other", settings.leaseTtl))
        .as("the other worker's lease")
        .containsExactly(job.id());
    holding.release.countDown();
  }

  @Test
  void aRedisDataLossHandsNoLiveWorkersUnwrittenAttemptToAnotherWorker() throws Exception {
    Holding holding = new Holding();
    Job job = holdUnwritten(holding);

    // Redis loses its data, this attempt's lease and held set with it (FLUSHALL, of this test's
    // keys), while another worker waits for work.
    TestStack.deleteOwnRedisKeys(harness.stores.redis(), harness.stores.keys());
    Instant lost = Instant.now();
    WorkerSettings other = WorkerHarness.settings();
    Holding second = new Holding();
    second.release.countDown();
    harness.startSeparate(other, harness.builtIns(other).register(second), new MetricRegistry());

    // The workers' promoters rebuild the queue from PostgreSQL: the job is put back, held back.
    // A promoter pass is due every second; 10 s leave room for a loaded machine (3 s timed out
    // once under the full suite).
    String queue = harness.stores.keys().queue("default", job.priority());
    Double score =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> harness.stores.redis().sync().zscore(queue, job.id().toString()),
                s -> s != null);
    assertThat(Instant.ofEpochMilli(score.longValue()))
        .isAfterOrEqualTo(lost.plus(harness.queueSettings.recoveryHoldBack));
    // Its worker writes the claim meanwhile; then a worker takes the entry and leaves the job.
    harness.awaitState(job, JobState.RUNNING, Duration.ofSeconds(3));
    await()
        .atMost(Duration.ofSeconds(6))
        .until(() -> harness.stores.redis().sync().zscore(queue, job.id().toString()) == null);
    assertThat(second.started.getCount()).as("the other worker never ran it").isEqualTo(1);

    holding.release.countDown();
    Job done = harness.awaitState(job, JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(1);
    assertThat(done.workerId()).isEqualTo(settings.workerId);
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(e -> assertThat(e.workerId()).isEqualTo(settings.workerId));
    assertThat(second.started.getCount()).isEqualTo(1);
  }
}
