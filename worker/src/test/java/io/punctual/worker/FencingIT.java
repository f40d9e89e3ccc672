package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.store.JobTransitions.Rescue;
import io.punctual.worker.claim.OwnLeases;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.complete.CompletionBatcher;
import io.punctual.worker.complete.PendingResults;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.heartbeat.Heartbeater;
import io.punctual.worker.heartbeat.LeaseKeeper;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.CompletionDecider;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.Outcome;
import io.punctual.worker.run.RunningAttempt;
import io.punctual.worker.run.RunningAttempts;
import io.punctual.worker.run.StopReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A worker whose attempt was superseded (rescued and re-run elsewhere) cannot record it. */
class FencingIT {
  private final WorkerHarness harness = new WorkerHarness();

  @AfterEach
  void close() {
    harness.close();
  }

  /**
   * Claims the job as a worker that will then stall, and rescues it the way the reaper does (the
   * reaper's own tests cover when it decides to): back to PENDING, the attempt recorded LOST.
   */
  private Job claimThenRescue(Job job, String staleWorker) {
    harness.stores.queue().claim("default", 10, Instant.now());
    Job attempt1 = harness.stores.transitions().claim(List.of(job.id()), staleWorker).get(0);
    assertThat(attempt1.attempt()).isEqualTo(1);
    Instant now = Instant.now();
    assertThat(
            harness
                .stores
                .transitions()
                .rescue(
                    List.of(new Rescue(job.id(), 1, JobState.PENDING, now, "attempt 1 lost")),
                    now.plusSeconds(1))
                .applied())
        .containsExactly(job.id());
    return attempt1;
  }

  private Heartbeater heartbeater(RunningAttempts running, WorkerSettings settings) {
    LeaseKeeper leases =
        new LeaseKeeper(harness.stores.redlock(), running, new PendingResults(), settings);
    return new Heartbeater(harness.stores.transitions(), running, leases, settings);
  }

  private CompletionBatcher batcher(WorkerSettings settings, MetricRegistry metrics) {
    Stores stores = harness.stores;
    return new CompletionBatcher(
        stores.clock(),
        Worker.completionStores(stores, Worker.slotHolders(stores, settings.workerId)),
        settings,
        new WorkerMetrics(metrics));
  }

  @Test
  void theStaleAttemptsCompletionIsRefusedAndNotRequeued() {
    Job job = harness.submit(aJob().type("noop").maxAttempts(3).build());
    Job stale = claimThenRescue(job, "stalled-worker");

    WorkerSettings settings = WorkerHarness.settings();
    harness.start(settings, harness.builtIns(settings));
    harness
        .stores
        .queue()
        .enqueue(List.of(new QueueEntry(job.id(), "default", Priority.NORMAL, Instant.now())));
    Job done = harness.awaitState(job, JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(2);
    // The worker's promoter rebuilt the queue at its start (its first pass) and may have put the
    // job back, held back queue.recoveryHoldBack, while it ran: only a requeue by the stale
    // completion below counts.
    harness.stores.redis().sync().del(harness.stores.keys().queue("default", Priority.NORMAL));

    MetricRegistry staleMetrics = new MetricRegistry();
    WorkerSettings staleSettings = WorkerHarness.settings();
    staleSettings.workerId = "stalled-worker";
    CompletionBatcher batcher = batcher(staleSettings, staleMetrics);
    CompletionDecider decider =
        new CompletionDecider(harness.stores.clock(), new SplittableRandom());
    Outcome failed = Outcome.Failed.retryable("finally gave up");
    Completion retry = decider.decide(stale, failed, 5);
    assertThat(retry.nextState()).isEqualTo(JobState.PENDING);

    assertThat(batcher.flush(List.of(new FinishedAttempt(stale, failed, retry)))).isEmpty();

    assertThat(staleMetrics.meter("punctual.worker.staleRefused").getCount()).isEqualTo(1);
    assertThat(staleMetrics.meter("punctual.worker.fenceRefused").getCount()).isEqualTo(1);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(after.attempt()).isEqualTo(2);
    assertThat(after.lastError()).isNull();
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isZero();
    assertThat(harness.executions(job))
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.LOST, ExecutionStatus.SUCCEEDED);
  }

  /**
   * A worker that wakes from a pause may claim a job again that was rescued meanwhile while its
   * earlier attempt's result is still on its way. The lease is the worker's, not the attempt's:
   * that stale result's release must leave it to the new attempt, or another worker could take the
   * job and run the new attempt's number a second time while its claim is unwritten.
   */
  @Test
  void aStaleEndLeavesTheLeaseOfTheJobsNewAttemptHere() {
    Job job = harness.submit(aJob().type("noop").maxAttempts(3).build());
    String worker = "paused-worker";
    Job stale = claimThenRescue(job, worker);
    RunningAttempts running = new RunningAttempts();
    OwnLeases leases = new OwnLeases(harness.stores.redlock(), worker, running::holdsOther);
    Duration ttl = Duration.ofSeconds(30);
    assertThat(leases.acquire(List.of(job.id()), ttl)).containsOnly(job.id());
    Job again = harness.stores.transitions().claim(List.of(job.id()), worker).get(0);
    assertThat(again.attempt()).isEqualTo(2);
    running.add(new RunningAttempt(again, Instant.now(), null));
    leases.claimDone(List.of(job.id()));

    WorkerSettings settings = WorkerHarness.settings();
    settings.workerId = worker;
    Stores stores = harness.stores;
    CompletionBatcher batcher =
        new CompletionBatcher(
            stores.clock(),
            Worker.completionStores(stores, Worker.slotHolders(stores, worker)),
            settings,
            new WorkerMetrics(new MetricRegistry()),
            new UnwrittenClaims(),
            leases);
    Outcome failed = Outcome.Failed.retryable("woke up late");
    Completion completion =
        new CompletionDecider(stores.clock(), new SplittableRandom()).decide(stale, failed, 5);

    assertThat(batcher.flush(List.of(new FinishedAttempt(stale, failed, completion)))).isEmpty();

    assertThat(stores.redlock().renew(List.of(job.id()), worker, ttl)).containsOnly(job.id());
    Job current = harness.find(job);
    assertThat(current.status()).isEqualTo(JobState.RUNNING);
    assertThat(current.attempt()).isEqualTo(2);
  }

  @Test
  void aHeartbeatStopsAnAttemptThatIsNoLongerCurrent() {
    Job job = harness.submit(aJob().type("noop").build());
    Job stale = claimThenRescue(job, "stalled-worker");
    RunningAttempts running = new RunningAttempts();
    RunningAttempt attempt = new RunningAttempt(stale, Instant.now(), null);
    running.add(attempt);
    WorkerSettings settings = WorkerHarness.settings();
    settings.workerId = "stalled-worker";

    int stopped = heartbeater(running, settings).runOnce();

    assertThat(stopped).isEqualTo(1);
    assertThat(attempt.stopReason()).isEqualTo(StopReason.CANCELLED);

    // The interrupted handler's completion (CANCELLED) is refused by the fence, and counted.
    MetricRegistry staleMetrics = new MetricRegistry();
    CompletionBatcher batcher = batcher(settings, staleMetrics);
    CompletionDecider decider =
        new CompletionDecider(harness.stores.clock(), new SplittableRandom());
    Outcome cancelled = new Outcome.Cancelled();
    Completion completion = decider.decide(stale, cancelled, 5);
    assertThat(batcher.flush(List.of(new FinishedAttempt(stale, cancelled, completion)))).isEmpty();
    assertThat(staleMetrics.meter("punctual.worker.fenceRefused").getCount()).isEqualTo(1);
    assertThat(staleMetrics.meter("punctual.worker.cancelled").getCount()).isEqualTo(1);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(harness.executions(job))
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.LOST);
  }

  @Test
  void aHeartbeatKeepsCurrentAttemptsAliveAndTheirLeasesHeld() {
    Job job = harness.submit(aJob().type("noop").build());
    harness.stores.queue().claim("default", 10, Instant.now());
    WorkerSettings settings = WorkerHarness.settings();
    harness.stores.redlock().acquire(List.of(job.id()), settings.workerId, settings.leaseTtl);
    Job claimed = harness.stores.transitions().claim(List.of(job.id()), settings.workerId).get(0);
    RunningAttempts running = new RunningAttempts();
    RunningAttempt attempt = new RunningAttempt(claimed, Instant.now(), null);
    running.add(attempt);

    assertThat(heartbeater(running, settings).runOnce()).isZero();

    assertThat(attempt.isStopped()).isFalse();
    assertThat(harness.find(job).heartbeatAt()).isAfterOrEqualTo(claimed.heartbeatAt());
    assertThat(harness.stores.redlock().isHeld(job.id())).isTrue();
  }
}
