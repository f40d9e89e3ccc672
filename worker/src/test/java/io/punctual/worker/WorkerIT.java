package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Backoff;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.metrics.WorkerMetrics;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WorkerIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final JobHandlers handlers = harness.builtIns(settings);

  @BeforeEach
  void registerTestHandlers() {
    handlers.register(
        new JobHandler() {
          @Override
          public String type() {
            return "reject";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            throw new NonRetryableException("invalid order " + ctx.payload().get("order"));
          }
        });
  }

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void theWorkersPromoterRebuildsALostQueueAndCountsIt() {
    harness.start(settings, handlers);
    // The first pass finds no cursor (a first start counts as a rebuild).
    await().atMost(Duration.ofSeconds(5)).until(() -> rebuilds() >= 1);
    long before = rebuilds();
    // As after a FLUSHALL: the cursor is gone, and a due job is in PostgreSQL only.
    Job job =
        harness.stores.submissions().submit(List.of(aJob().type("noop").build())).get(0).job();
    harness.stores.redis().sync().del(harness.stores.keys().promoterCursor());

    harness.awaitState(job, JobState.SUCCEEDED);
    assertThat(rebuilds()).isGreaterThan(before);
  }

  private long rebuilds() {
    return (Long)
        harness.metrics.getGauges().get(WorkerMetrics.PREFIX + "queueRebuilds").getValue();
  }

  @Test
  void aJobRunsOnceAndSucceeds() {
    harness.start(settings, handlers);
    Job job =
        harness.submit(aJob().type("echo").payload(Json.readTree("{\"hello\":\"world\"}")).build());

    Job done = harness.awaitState(job, JobState.SUCCEEDED);

    assertThat(done.attempt()).isEqualTo(1);
    assertThat(done.result()).isEqualTo(Json.readTree("{\"hello\":\"world\"}"));
    assertThat(done.finishedAt()).isNotNull();
    List<Execution> executions = harness.executions(job);
    assertThat(executions).hasSize(1);
    Execution e = executions.get(0);
    assertThat(e.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
    assertThat(e.workerId()).isEqualTo(settings.workerId);
    assertThat(e.finishedAt()).isNotNull();
    assertThat(e.durationMs()).isNotNull();
    harness.awaitMeter("succeeded", 1);
    harness.awaitMeter("claimed", 1);
    assertThat(harness.metrics.getGauges())
        .containsKeys(
            "punctual.worker.running",
            "punctual.queue.default.critical.size",
            "punctual.queue.default.low.size");
    assertThat(harness.metrics.getTimers().get("punctual.worker.execution").getCount())
        .isEqualTo(1);
    // The promoter may enqueue the job a second time; that claim is refused by PostgreSQL.
    assertThat(harness.metrics.getHistograms().get("punctual.worker.claimBatch").getCount())
        .isPositive();
  }

  @Test
  void failingAttemptsAreRetriedAfterTheirBackoffUntilOneSucceeds() {
    harness.start(settings, handlers);
    Backoff backoff =
        new Backoff.Intervals(List.of(Duration.ofMillis(200), Duration.ofMillis(400)));
    Job job =
        harness.submit(
            aJob()
                .type("fail")
                .payload(Json.readTree("{\"times\":2}"))
                .maxAttempts(3)
                .backoff(backoff)
                .build());

    Job done = harness.awaitState(job, JobState.SUCCEEDED);

    assertThat(done.attempt()).isEqualTo(3);
    List<Execution> executions = harness.executions(job);
    assertThat(executions)
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.FAILED, ExecutionStatus.FAILED, ExecutionStatus.SUCCEEDED);
    assertThat(executions.get(0).error()).contains("planned failure of attempt 1");
    assertThat(executions.get(0).stackTrace()).contains("FailHandler");
    assertThat(executions.get(1).startedAt())
        .isAfterOrEqualTo(executions.get(0).finishedAt().plusMillis(200));
    assertThat(executions.get(2).startedAt())
        .isAfterOrEqualTo(executions.get(1).finishedAt().plusMillis(400));
    harness.awaitMeter("retried", 2);
  }

  @Test
  void exhaustedAttemptsFailTheJob() {
    harness.start(settings, handlers);
    Job job =
        harness.submit(
            aJob().type("fail").payload(Json.readTree("{\"times\":5}")).maxAttempts(3).build());

    Job failed = harness.awaitState(job, JobState.FAILED);

    assertThat(failed.attempt()).isEqualTo(3);
    assertThat(failed.lastError()).contains("planned failure of attempt 3");
    assertThat(harness.executions(job))
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.FAILED, ExecutionStatus.FAILED, ExecutionStatus.FAILED);
    harness.awaitMeter("failed", 1);
  }

  @Test
  void nonRetryableErrorsAndUnknownTypesFailAtOnce() {
    harness.start(settings, handlers);
    Job rejected =
        harness.submit(
            aJob().type("reject").payload(Json.readTree("{\"order\":7}")).maxAttempts(5).build());
    Job unknown = harness.submit(aJob().type("no-such-type").maxAttempts(5).build());

    assertThat(harness.awaitState(rejected, JobState.FAILED).lastError())
        .isEqualTo("invalid order 7");
    assertThat(harness.awaitState(unknown, JobState.FAILED).lastError())
        .isEqualTo("no handler for type no-such-type");
    assertThat(harness.executions(rejected)).hasSize(1);
    assertThat(harness.executions(unknown)).hasSize(1);
  }

  @Test
  void anOverrunningAttemptIsInterruptedRecordedAsTimedOutAndRetried() {
    harness.start(settings, handlers);
    Job job = submitOverrunning(Duration.ofMillis(200), 2);

    Job failed = harness.awaitState(job, JobState.FAILED);

    assertThat(failed.lastError()).isEqualTo("timed out after PT0.2S");
    List<Execution> executions = harness.executions(job);
    assertThat(executions)
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.TIMED_OUT, ExecutionStatus.TIMED_OUT);
    assertThat(executions.get(0).durationMs()).isBetween(200L, 5_000L);
    harness.awaitMeter("timedOut", 2);
  }

  @Test
  void theDefaultTimeoutAppliesToJobsWithoutOne() {
    settings.defaultTimeout = Duration.ofMillis(150);
    harness.start(settings, handlers);
    Job job =
        harness.submit(
            aJob().type("sleep").payload(Json.readTree("{\"ms\":30000}")).maxAttempts(1).build());

    harness.awaitState(job, JobState.FAILED);

    assertThat(harness.executions(job))
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.TIMED_OUT);
  }

  @Test
  void aTimeoutBeyondTheArmingHorizonStillFiresOnTime() {
    // 3 s: more than AttemptTimeouts' horizon (2 s), so its timer is armed by the worker's sweep,
    // not at the start; it must still fire at 3 s, not a sweep's period later.
    harness.start(settings, handlers);
    Job job = submitOverrunning(Duration.ofSeconds(3), 1);

    Job failed = harness.awaitState(job, JobState.FAILED);

    assertThat(failed.lastError()).isEqualTo("timed out after PT3S");
    List<Execution> executions = harness.executions(job);
    assertThat(executions).extracting(Execution::status).containsExactly(ExecutionStatus.TIMED_OUT);
    assertThat(executions.get(0).durationMs()).isBetween(3_000L, 3_900L);
  }

  /** A job whose handler sleeps 30 s, far past {@code timeout}. */
  private Job submitOverrunning(Duration timeout, int maxAttempts) {
    return harness.submit(
        aJob()
            .type("sleep")
            .payload(Json.readTree("{\"ms\":30000}"))
            .timeout(timeout)
            .maxAttempts(maxAttempts)
            .build());
  }
}
