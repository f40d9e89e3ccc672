package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Completion;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.queue.Stores;
import io.punctual.queue.lease.Redlock;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.claim.UnwrittenLeases;
import io.punctual.worker.complete.CompletionBatcher;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.heartbeat.ClaimWriter;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.CompletionDecider;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.Outcome;
import io.punctual.worker.run.RunningAttempts;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fence of a claim held unwritten ({@link UnwrittenLeases}), against real PostgreSQL and Redis:
 * a claim kept unwritten past half its lease's TTL (a paused worker) asks Redis before its claim or
 * its end is written. Its lease lapsed to another worker, which read the same attempt: neither is
 * written, and the other worker's end is the one recorded. Its lease still its own, or free: the
 * claim is written as usual. The claims' ages are read on a clock of the test's own.
 */
class UnwrittenLeasesIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final Stores stores = harness.stores;
  private final Redlock redlock = stores.redlock();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final UnwrittenClaims claims = new UnwrittenClaims(nanos::get);
  private final UnwrittenLeases leases =
      new UnwrittenLeases(claims, redlock, settings.workerId, settings.leaseTtl);
  private final ClaimWriter writer =
      new ClaimWriter(
          stores.transitions(),
          claims,
          leases,
          stores.heldClaims(),
          new RunningAttempts(),
          settings);

  @AfterEach
  void close() {
    harness.close();
  }

  /** Leases the job as {@code worker} and reads its claim without writing it. */
  private Job holdUnwritten(Job job, String worker) {
    assertThat(redlock.acquire(List.of(job.id()), worker, settings.leaseTtl))
        .containsExactly(job.id());
    var outcome =
        stores.transitions().claimJudged("default", List.of(job.id()), worker, null, true);
    assertThat(outcome.unwritten()).isTrue();
    return outcome.claimed().get(0);
  }

  /** This test's worker holds the job's claim unwritten, from a lease taken now. */
  private Job holdHere(Job job) {
    long leased = nanos.get();
    Job held = holdUnwritten(job, settings.workerId);
    claims.add(List.of(held), leased);
    return held;
  }

  /** Its lease goes to another worker, which reads the same attempt, unwritten too. */
  private Job lapseTo(Job job, String other) {
    redlock.release(List.of(job.id()), settings.workerId);
    return holdUnwritten(job, other);
  }

  private void pauseLongerThanHalfTheLease() {
    nanos.addAndGet(settings.leaseTtl.toNanos() / 2 + Duration.ofSeconds(1).toNanos());
  }

  @Test
  void aClaimWhoseLeaseLapsedToAnotherWorkerIsNotWritten() {
    Job job = harness.submit(aJob().type("noop").build());
    Job held = holdHere(job);
    Job other = lapseTo(job, "w-other");
    assertThat(other.attempt()).as("the same attempt").isEqualTo(held.attempt());
    pauseLongerThanHalfTheLease();

    assertThat(writer.writeAll()).isZero();

    Job row = harness.find(job);
    assertThat(row.status()).isEqualTo(JobState.PENDING);
    assertThat(row.attempt()).isZero();
    assertThat(claims.isUnwritten(job.id(), held.attempt())).as("given up").isFalse();
    assertThat(redlock.heldAmong(List.of(job.id()))).as("the other worker's lease").hasSize(1);
  }

  @Test
  void anEndThroughAClaimWhoseLeaseLapsedIsNotWrittenAndTheOtherWorkersEndIsRecorded() {
    Job job = harness.submit(aJob().type("noop").build());
    Job held = holdHere(job);
    Job other = lapseTo(job, "w-other");
    pauseLongerThanHalfTheLease();
    MetricRegistry metrics = new MetricRegistry();
    CompletionBatcher batcher =
        new CompletionBatcher(
            stores.clock(),
            Worker.completionStores(stores, Worker.slotHolders(stores, settings.workerId)),
            settings,
            new WorkerMetrics(metrics),
            claims);
    CompletionDecider decider = new CompletionDecider(stores.clock(), new SplittableRandom());
    Outcome ok = new Outcome.Succeeded(null, List.of());

    assertThat(batcher.flush(List.of(new FinishedAttempt(held, ok, decider.decide(held, ok, 5)))))
        .isEmpty();

    assertThat(metrics.meter("punctual.worker.fenceRefused").getCount()).isEqualTo(1);
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    Completion theirs = decider.decide(other, ok, 7);
    assertThat(stores.transitions().finish(List.of(theirs), "w-other", Set.of(job.id())).applied())
        .containsExactly(job.id());
    Job done = harness.find(job);
    assertThat(done.status() + " " + done.attempt() + " " + done.workerId())
        .isEqualTo("SUCCEEDED 1 w-other");
    assertThat(harness.executions(job))
        .extracting(e -> e.attempt() + " " + e.status() + " " + e.workerId())
        .containsExactly("1 SUCCEEDED w-other");
  }

  @Test
  void anOldClaimWhoseLeaseIsStillItsOwnIsConfirmedAndWritten() {
    Job job = harness.submit(aJob().type("noop").build());
    holdHere(job);
    pauseLongerThanHalfTheLease();

    assertThat(writer.writeAll()).isEqualTo(1);

    Job row = harness.find(job);
    assertThat(row.status() + " " + row.attempt() + " " + row.workerId())
        .isEqualTo("RUNNING 1 " + settings.workerId);
    assertThat(leases.lapsed(List.of(job.id()))).as("no longer held unwritten").isEmpty();
  }

  @Test
  void anOldClaimWhoseLeaseNobodyHoldsTakesItAgainAndIsWritten() {
    Job job = harness.submit(aJob().type("noop").build());
    holdHere(job);
    redlock.release(List.of(job.id()), settings.workerId); // expired, nobody took it
    pauseLongerThanHalfTheLease();

    assertThat(writer.writeAll()).isEqualTo(1);

    assertThat(harness.find(job).status()).isEqualTo(JobState.RUNNING);
    assertThat(redlock.renew(List.of(job.id()), settings.workerId, settings.leaseTtl))
        .as("its lease again")
        .containsExactly(job.id());
  }

  @Test
  void aYoungClaimAsksRedisNothing() {
    Job job = harness.submit(aJob().type("noop").build());
    holdHere(job);
    nanos.addAndGet(settings.leaseTtl.toNanos() / 2 - 1);

    // Even a lease gone is not looked at: a lease taken less than half its TTL ago still holds.
    redlock.release(List.of(job.id()), settings.workerId);
    assertThat(leases.lapsed(List.of(job.id()))).isEmpty();
    assertThat(redlock.heldAmong(List.of(job.id()))).as("not taken again either").isEmpty();
  }
}
