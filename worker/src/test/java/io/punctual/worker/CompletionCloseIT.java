package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.complete.CompletionBatcher;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.CompletionDecider;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Closing the completion writer writes what is queued at once, not after its gathering window. */
class CompletionCloseIT {
  private final WorkerHarness harness = new WorkerHarness();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void closeWritesTheQueuedAttemptsWithoutWaitingOutTheFlushInterval() {
    List<Job> jobs =
        harness.submit(
            List.of(
                aJob().type("noop").build(),
                aJob().type("noop").build(),
                aJob().type("noop").build()));
    harness.stores.queue().claim("default", 10, Instant.now());
    List<Job> claimed =
        harness.stores.transitions().claim(jobs.stream().map(Job::id).toList(), "closing-worker");
    assertThat(claimed).hasSize(3);

    WorkerSettings settings = WorkerHarness.settings();
    settings.workerId = "closing-worker";
    settings.completionFlushInterval = Duration.ofMinutes(5); // a batch would gather for 5 minutes
    settings.completionBatchSize = 500;
    MetricRegistry metrics = new MetricRegistry();
    CompletionBatcher batcher =
        new CompletionBatcher(
            harness.stores.clock(),
            Worker.completionStores(
                harness.stores, Worker.slotHolders(harness.stores, settings.workerId)),
            settings,
            new WorkerMetrics(metrics));
    batcher.start();
    CompletionDecider decider =
        new CompletionDecider(harness.stores.clock(), new SplittableRandom());
    for (Job job : claimed) {
      Outcome ok = new Outcome.Succeeded(null);
      batcher.add(new FinishedAttempt(job, ok, decider.decide(job, ok, 1)));
    }

    long started = System.nanoTime();
    batcher.close();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(Duration.ofMinutes(1));
    assertThat(metrics.meter("punctual.worker.succeeded").getCount()).isEqualTo(3);
    for (Job job : jobs) {
      assertThat(harness.find(job).status()).isEqualTo(JobState.SUCCEEDED);
      assertThat(harness.executions(job))
          .extracting(Execution::status)
          .containsExactly(ExecutionStatus.SUCCEEDED);
    }
    assertThat(batcher.pendingResults().snapshot()).isEmpty();
  }
}
