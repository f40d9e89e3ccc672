package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.json.Json;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.queue.CancelNotice;
import io.punctual.store.JobTransitions.CancelResult;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CancelIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final JobHandlers handlers = harness.builtIns(settings);

  @AfterEach
  void close() {
    harness.close();
  }

  /** Notes whether it was interrupted; ignores it, then succeeds once released. */
  static final class StubbornHandler implements JobHandler {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    final AtomicBoolean sawCancel = new AtomicBoolean();

    @Override
    public String type() {
      return "stubborn";
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      started.countDown();
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          interrupted.set(true);
          sawCancel.set(ctx.isCancelled());
        }
      }
      return JobResult.success(Json.readTree("{\"late\":true}"));
    }
  }

  @Test
  void cancellingARunningJobInterruptsItsHandler() {
    Worker worker = harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("sleep").payload(Json.readTree("{\"ms\":60000}")).build());
    harness.awaitState(job, JobState.RUNNING);
    await().until(() -> worker.running() == 1);

    assertThat(harness.stores.transitions().cancel("default", job.id()))
        .isInstanceOf(CancelResult.Cancelled.class);

    await().atMost(Duration.ofSeconds(3)).until(() -> harness.meter("cancelled") == 1);
    assertThat(worker.running()).isZero();
    Job cancelled = harness.find(job);
    assertThat(cancelled.status()).isEqualTo(JobState.CANCELLED);
    assertThat(harness.executions(job))
        .singleElement()
        .satisfies(e -> assertThat(e.status()).isEqualTo(ExecutionStatus.CANCELLED));
    assertThat(harness.meter("staleRefused")).isZero();
    assertThat(harness.meter("fenceRefused"))
        .as("the handler's CANCELLED completion: the job was no longer RUNNING")
        .isEqualTo(1);
  }

  @Test
  void anAnnouncedCancelInterruptsTheHandlerLongBeforeTheNextHeartbeat() throws Exception {
    settings.heartbeatInterval = Duration.ofSeconds(30);
    settings.leaseTtl = Duration.ofSeconds(60);
    StubbornHandler stubborn = new StubbornHandler();
    handlers.register(stubborn);
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("stubborn").build());
    assertThat(stubborn.started.await(5, TimeUnit.SECONDS)).isTrue();

    CancelResult.Cancelled c =
        (CancelResult.Cancelled) harness.stores.transitions().cancel("default", job.id());
    long sent = System.nanoTime();
    harness
        .stores
        .queue()
        .announceCancelsAsync(
            List.of(new CancelNotice(job.id(), c.job().attempt(), c.job().finishedAt())))
        .join();

    await().atMost(Duration.ofSeconds(1)).untilTrue(stubborn.interrupted);
    assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofSeconds(1));
    assertThat(stubborn.sawCancel).as("ctx.isCancelled() when interrupted").isTrue();
    assertThat(observations(harness.metrics, "punctual_cancel_to_interrupt_seconds")).isEqualTo(1);
    stubborn.release.countDown();
  }

  @Test
  void aNoticeForAnotherAttemptInterruptsNothing() throws Exception {
    StubbornHandler stubborn = new StubbornHandler();
    handlers.register(stubborn);
    Worker worker = harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("stubborn").build());
    assertThat(stubborn.started.await(5, TimeUnit.SECONDS)).isTrue();

    harness
        .stores
        .queue()
        .announceCancelsAsync(List.of(new CancelNotice(job.id(), 7, java.time.Instant.now())))
        .join();
    Thread.sleep(300);
    assertThat(stubborn.interrupted).isFalse();
    assertThat(worker.running()).isEqualTo(1);
    harness.awaitState(job, JobState.RUNNING); // its claim written after worker.claimWriteAfter
    stubborn.release.countDown();
    harness.awaitState(job, JobState.SUCCEEDED);
  }

  @Test
  void aLateCompletionOfACancelledJobIsRefused() throws Exception {
    StubbornHandler stubborn = new StubbornHandler();
    handlers.register(stubborn);
    harness.start(settings, handlers);
    Job job = harness.submit(aJob().type("stubborn").build());
    assertThat(stubborn.started.await(5, TimeUnit.SECONDS)).isTrue();

    harness.stores.transitions().cancel("default", job.id());
    await().atMost(Duration.ofSeconds(3)).untilTrue(stubborn.interrupted);
    assertThat(stubborn.sawCancel).isTrue();
    stubborn.release.countDown();

    await().atMost(Duration.ofSeconds(3)).until(() -> harness.meter("staleRefused") == 1);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.CANCELLED);
    assertThat(after.result()).isNull();
    assertThat(harness.meter("succeeded")).isZero();
    assertThat(harness.meter("fenceRefused")).isEqualTo(1);
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
