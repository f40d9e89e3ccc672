package io.punctual.worker.claim;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.WorkerHarness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.metrics.WorkerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClaimLoopIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final List<Job> started = new CopyOnWriteArrayList<>();
  private Job secondJob;

  @AfterEach
  void close() {
    harness.close();
  }

  private ClaimLoop loop(Stores stores, Semaphore slots) {
    return loop(stores, new Waiter(stores.clock()), slots, new MetricRegistry());
  }

  /** A loop over {@code stores} that records the jobs it starts in {@link #started}. */
  private ClaimLoop loop(Stores stores, Waiter waiter, Semaphore slots, MetricRegistry registry) {
    return new ClaimLoop(
        Worker.claimStores(stores, Worker.slotHolders(stores, settings.workerId)),
        new HandlerSlots(slots, started::add),
        new NamespaceShares(ns -> true, ns -> 1, NamespaceCaps.none(stores.clock())),
        waiter,
        settings,
        new WorkerMetrics(registry));
  }

  @Test
  void aPassClaimsNoMoreThanTheFreeSlotsAndReportsTheNextDueTime() {
    Instant now = Instant.now();
    List<Job> jobs =
        harness.submit(
            List.of(
                aJob().runAt(now.minusSeconds(1)).build(),
                aJob().runAt(now.minusSeconds(1)).build(),
                aJob().runAt(now.minusSeconds(1)).build(),
                aJob().runAt(now.plusSeconds(60)).build()));
    Semaphore slots = new Semaphore(2);

    ClaimLoop.Pass pass = loop(harness.stores, slots).runOnce();

    assertThat(pass.started()).isEqualTo(2);
    assertThat(pass.full()).isTrue();
    assertThat(slots.availablePermits()).isZero();
    assertThat(started).extracting(Job::status).containsOnly(JobState.RUNNING);
    assertThat(started).extracting(Job::attempt).containsOnly(1);
    assertThat(started)
        .allSatisfy(j -> assertThat(harness.stores.redlock().isHeld(j.id())).isTrue());

    slots.release(2);
    ClaimLoop.Pass next = loop(harness.stores, slots).runOnce();
    assertThat(next.started()).isEqualTo(1);
    assertThat(next.full()).isFalse();
    assertThat(next.nextDue()).contains(jobs.get(3).runAt());
  }

  @Test
  void aDatabaseErrorAfterTheRedisClaimPutsTheJobsBackAndFreesTheirLeases() {
    Job job = harness.submit(aJob().runAt(Instant.now().minusSeconds(1)).build());
    PostgresSettings broken =
        new PostgresSettings(harness.postgres.url + "_missing", "postgres", "");
    broken.connectionTimeout = Duration.ofMillis(300);
    try (Stores noDatabase =
        new Stores(broken, harness.redis, new QueueSettings(), Clock.systemUTC(), "broken")) {
      assertThatThrownBy(() -> loop(noDatabase, new Semaphore(10)).runOnce())
          .isInstanceOf(RuntimeException.class);
    }

    assertThat(started).isEmpty();
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isEqualTo(1);
    assertThat(harness.stores.redlock().isHeld(job.id())).isFalse();
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aPendingJobWhoseLeaseIsTakenGoesBackAMomentLaterAndARunningOneDoesNot() {
    Instant past = Instant.now().minusSeconds(1);
    List<Job> jobs =
        harness.submit(List.of(aJob().runAt(past).build(), aJob().runAt(past).build()));
    Job pending = jobs.get(0);
    Job running = jobs.get(1);
    // Leases still held: the first as a finished attempt's lease not released yet, the second as
    // a job another worker runs (confirmed in PostgreSQL) while a duplicate entry sits in Redis.
    harness.stores.redlock().acquire(List.of(pending.id()), "other-worker", Duration.ofMinutes(1));
    harness.stores.redlock().acquire(List.of(running.id()), "other-worker", Duration.ofMinutes(1));
    harness.stores.transitions().claim(List.of(running.id()), "other-worker");
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS); // queue scores are in ms

    ClaimLoop.Pass pass = loop(harness.stores, new Semaphore(10)).runOnce();

    assertThat(pass.started()).isZero();
    assertThat(started).isEmpty();
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isEqualTo(1);
    Double score =
        harness
            .stores
            .redis()
            .sync()
            .zscore(
                harness.stores.queue().keys().queue("default", Priority.NORMAL),
                pending.id().toString());
    assertThat(score).isNotNull();
    assertThat(score.longValue()).isGreaterThanOrEqualTo(before.plusMillis(100).toEpochMilli());
    harness.stores.redlock().release(List.of(pending.id()), "other-worker");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> loop(harness.stores, new Semaphore(10)).runOnce().started() == 1);
    assertThat(started).extracting(Job::id).containsExactly(pending.id());
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isZero();
  }

  @Test
  void behindOnDueJobsTheLoopWaitsForAWholeClaimOfFreeSlots() throws Exception {
    settings.claimGather = Duration.ofSeconds(5);

    List<Long> claims = claimsAfterFreeing(3, 2);

    // The first pass took the 2 free slots; with 3 free of the 5 a claim may take it waited.
    assertThat(claims).containsExactly(2L, 5L);
  }

  @Test
  void withoutClaimGatherTheLoopClaimsWhatIsFreeAtOnce() throws Exception {
    settings.claimGather = Duration.ZERO;

    List<Long> claims = claimsAfterFreeing(3, 2);

    // At the first freed slot, then at each one after it: never the whole claim of 5 at once.
    assertThat(claims).hasSizeGreaterThanOrEqualTo(3).allMatch(n -> n <= 3);
  }

  @Test
  void whileOneClaimWaitsForItsCommitTheNextClaimStartsItsJobs() throws Exception {
    settings.claimsInFlight = 2;

    List<Job> order = claimBehindABlockedConfirmation();

    // The second job was confirmed and started while the first one's confirmation waited.
    assertThat(order).extracting(Job::id).containsExactly(secondJob.id());
  }

  @Test
  void withOneClaimInFlightTheNextClaimWaitsForTheCommitBeforeIt() throws Exception {
    settings.claimsInFlight = 1;

    List<Job> order = claimBehindABlockedConfirmation();

    // Nothing started while the first claim's confirmation was blocked; both once it was not.
    assertThat(order).isEmpty();
  }

  /**
   * One job due whose row is locked by another transaction, so that its claim's confirmation
   * blocks; then a second job due. Runs the loop and returns what had started 2 s after the second
   * job was submitted (as soon as one started, with several claims in flight), before the lock is
   * released; checks that both start once it is. The second job is left in {@link #secondJob}.
   */
  private List<Job> claimBehindABlockedConfirmation() throws Exception {
    settings.maxIdleWait = Duration.ofMillis(20); // no wake-up subscription in this test
    Job first = harness.submit(aJob().runAt(Instant.now().minusSeconds(1)).build());
    Semaphore slots = new Semaphore(10);
    Waiter waiter = new Waiter(harness.stores.clock());
    MetricRegistry registry = new MetricRegistry();
    ClaimLoop loop = loop(harness.stores, waiter, slots, registry);
    List<Job> before;
    Thread thread = null;
    try (org.jdbi.v3.core.Handle lock = harness.stores.database().jdbi().open()) {
      lock.begin();
      lock.createQuery("SELECT 1 FROM jobs WHERE id = :id FOR UPDATE")
          .bind("id", first.id())
          .mapTo(Integer.class)
          .one();
      thread = Thread.ofPlatform().name("claim-loop-test").start(loop);
      // The first claim has left Redis and waits for PostgreSQL.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> harness.stores.queue().size("default", Priority.NORMAL) == 0);
      Job second = harness.submit(aJob().runAt(Instant.now().minusSeconds(1)).build());
      secondJob = second;
      if (settings.claimsInFlight > 1) {
        await().atMost(Duration.ofSeconds(10)).until(() -> !started.isEmpty());
      } else {
        Thread.sleep(2_000);
      }
      before = List.copyOf(started);
      lock.rollback();
      await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 2);
      assertThat(started).extracting(Job::id).containsExactlyInAnyOrder(first.id(), second.id());
      assertThat(slots.availablePermits()).isEqualTo(8);
    } finally {
      waiter.stop();
      if (thread != null) {
        thread.join(10_000);
      }
    }
    return before;
  }

  /**
   * Ten jobs due, claims of at most 5 into 5 slots of which 3 are taken: runs the loop, frees
   * {@code first} slots, waits a moment, frees {@code second} more; returns the claims' sizes.
   */
  private List<Long> claimsAfterFreeing(int first, int second) throws Exception {
    settings.claimBatchSize = 5;
    Instant past = Instant.now().minusSeconds(1);
    List<io.punctual.model.NewJob> due = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      due.add(aJob().runAt(past).build());
    }
    harness.submit(due);
    Semaphore slots = new Semaphore(5);
    slots.acquire(3);
    Waiter waiter = new Waiter(harness.stores.clock());
    MetricRegistry registry = new MetricRegistry();
    ClaimLoop loop = loop(harness.stores, waiter, slots, registry);
    Thread thread = Thread.ofPlatform().name("claim-loop-test").start(loop);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 2);
      free(slots, waiter, first);
      Thread.sleep(300);
      free(slots, waiter, second);
      await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 7);
    } finally {
      waiter.stop();
      thread.join(10_000);
    }
    return java.util.Arrays.stream(
            registry.histogram("punctual.worker.claimBatch").getSnapshot().getValues())
        .boxed()
        .toList();
  }

  /** Handlers ending: {@code n} slots freed, each reported to the waiter as the worker does. */
  private static void free(Semaphore slots, Waiter waiter, int n) {
    for (int i = 0; i < n; i++) {
      slots.release();
      waiter.slotFreed(slots.availablePermits());
    }
  }
}
