package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
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
  void anAttemptStillRunningAfterTheGraceIsHandedBackAtOnceWithoutUsingUpAnAttempt() {
    settings.shutdownGrace = Duration.ofMillis(200);
    Worker worker = harness.start(settings, harness.builtIns(settings));
    // Its only attempt: were the interrupted attempt counted, the job could not run again.
    Job job =
        harness.submit(
            aJob().type("sleep").payload(Json.readTree("{\"ms\":60000}")).maxAttempts(1).build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 1);

    long started = System.nanoTime();
    worker.close();
    long tookMs = (System.nanoTime() - started) / 1_000_000;

    assertThat(tookMs).isLessThan(5_000);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(after.maxAttempts()).as("the handoff gave its attempt back").isEqualTo(2);
    assertThat(after.hasAttemptsLeft()).isTrue();
    assertThat(after.runAt()).as("due at once").isBefore(Instant.now().plusMillis(1));
    assertThat(after.runAt()).isAfter(Instant.now().minusSeconds(5));
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.status()).isEqualTo(ExecutionStatus.HANDED_BACK);
              assertThat(e.error()).contains("shutdown grace");
              assertThat(e.workerId()).isEqualTo(settings.workerId);
            });
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isEqualTo(1);
    assertThat(harness.stores.redlock().isHeld(job.id())).isFalse();
    assertThat(harness.meter("handoffs")).isEqualTo(1);
    assertThat(harness.meter("failed")).isZero();
    assertThat(harness.meter("fenceRefused")).isZero();

    // The next worker claims it at once and runs it, as its attempt 2 of 2.
    RecordingHandler recording = new RecordingHandler("sleep");
    WorkerSettings next = WorkerHarness.settings();
    harness.start(next, new JobHandlers().register(recording));
    Job done = harness.awaitState(job, JobState.SUCCEEDED, Duration.ofSeconds(10));
    assertThat(done.attempt()).isEqualTo(2);
    assertThat(done.maxAttempts()).isEqualTo(2);
    assertThat(recording.runs()).hasSize(1);
    assertThat(harness.executions(job))
        .extracting(e -> e.attempt() + " " + e.status())
        .containsExactlyInAnyOrder("1 HANDED_BACK", "2 SUCCEEDED");
  }

  @Test
  void aHandlerThatIgnoresItsInterruptionIsHandedBackAnywayAndItsLateResultIsDropped()
      throws Exception {
    settings.shutdownGrace = Duration.ofMillis(200);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger returned = new AtomicInteger();
    JobHandler stubborn =
        new JobHandler() {
          @Override
          public String type() {
            return "stubborn";
          }

          @Override
          public JobResult handle(JobContext ctx) {
            while (true) {
              try {
                release.await();
                returned.incrementAndGet();
                return JobResult.success();
              } catch (InterruptedException ignored) {
                // a handler that will not stop
              }
            }
          }
        };
    Worker worker = harness.start(settings, new JobHandlers().register(stubborn));
    Job job = harness.submit(aJob().type("stubborn").maxAttempts(2).build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 1);

    worker.close();

    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.maxAttempts()).isEqualTo(3);
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.status()).isEqualTo(ExecutionStatus.HANDED_BACK);
              assertThat(e.error()).contains("ignored its interruption");
            });
    assertThat(harness.stores.queue().size("default", Priority.NORMAL)).isEqualTo(1);
    assertThat(harness.meter("handoffs")).isEqualTo(1);

    // The handler ends late: its success is not recorded over the handoff.
    release.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> returned.get() == 1);
    Thread.sleep(300);
    assertThat(harness.find(job).status()).isEqualTo(JobState.PENDING);
    assertThat(harness.executions(job))
        .singleElement()
        .extracting(Execution::status)
        .isEqualTo(ExecutionStatus.HANDED_BACK);
  }

  @Test
  void aHandlerThatReturnsAResultWhenInterruptedHasItRecordedNotHandedBack() {
    settings.shutdownGrace = Duration.ofMillis(200);
    JobHandler polite =
        new JobHandler() {
          @Override
          public String type() {
            return "polite";
          }

          @Override
          public JobResult handle(JobContext ctx) {
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              // saves its work and says it is done
            }
            return JobResult.success();
          }
        };
    Worker worker = harness.start(settings, new JobHandlers().register(polite));
    Job job = harness.submit(aJob().type("polite").build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.running() == 1);

    worker.close();

    assertThat(harness.find(job).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(harness.executions(job))
        .singleElement()
        .extracting(Execution::status)
        .isEqualTo(ExecutionStatus.SUCCEEDED);
    assertThat(harness.meter("handoffs")).isZero();
  }
}
