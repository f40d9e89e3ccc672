package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShutdownIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void closeLetsARunningJobFinishWithinTheGrace() {
    settings.shutdownGrace = Duration.ofSeconds(10);
    Worker worker = harness.start(settings, harness.builtIns(settings));
    Job job = harness.submit(aJob().type("sleep").payload(Json.readTree("{\"ms\":700}")).build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 1);

    worker.close();

    Job done = harness.find(job);
    assertThat(done.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(e -> assertThat(e.status()).isEqualTo(ExecutionStatus.SUCCEEDED));
    assertThat(harness.stores.redlock().isHeld(job.id())).isFalse();
    worker.close(); // idempotent
  }

  @Test
  void handlersStillRunningAfterTheGraceAreInterruptedAndRetriedLater() {
    settings.shutdownGrace = Duration.ofMillis(200);
    Worker worker = harness.start(settings, harness.builtIns(settings));
    Job job =
        harness.submit(
            aJob().type("sleep").payload(Json.readTree("{\"ms\":60000}")).maxAttempts(3).build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 1);

    long started = System.nanoTime();
    worker.close();
    long tookMs = (System.nanoTime() - started) / 1_000_000;

    assertThat(tookMs).isLessThan(5_000);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
              assertThat(e.error()).contains("worker shutting down");
            });
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isEqualTo(1);
    assertThat(harness.stores.redlock().isHeld(job.id())).isFalse();
  }
}
