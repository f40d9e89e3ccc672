package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.AttemptProgress;
import io.punctual.store.AttemptOutputs.LogLine;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Handlers' progress and log lines, through a real worker into PostgreSQL, read as the API does.
 */
class ProgressAndLogsIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final AttemptOutputs outputs = new AttemptOutputs(harness.stores.database().jdbi());

  @AfterEach
  void close() {
    harness.close();
  }

  /** Reports half way, logs a line, waits to be released, then reports done of total. */
  static final class Reporting implements JobHandler {
    final CountDownLatch halfWay = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public String type() {
      return "reporting";
    }

    @Override
    public JobResult handle(JobContext ctx) throws Exception {
      ctx.progress(50);
      ctx.log("started attempt " + ctx.attempt());
      halfWay.countDown();
      release.await();
      ctx.log("x".repeat(JobContext.MAX_LOG_LINE + 100));
      ctx.progress(3, 4);
      if (ctx.attempt() == 1) {
        throw new IllegalStateException("first attempt fails");
      }
      return JobResult.success();
    }
  }

  @Test
  void progressAndLinesAreSeenWhileTheAttemptRunsAndKeptPerAttempt() throws Exception {
    Reporting handler = new Reporting();
    harness.start(settings, new JobHandlers().register(handler));
    Job job = harness.submit(aJob().type("reporting").maxAttempts(2).build());
    handler.halfWay.await();

    // Seen while the attempt still runs (written every outputFlushInterval).
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> outputs.latestProgress("default", job.id()).isPresent());
    AttemptProgress running = outputs.latestProgress("default", job.id()).orElseThrow();
    assertThat(running.attempt()).isEqualTo(1);
    assertThat(running.progress().percent()).isEqualTo(50f);
    assertThat(running.progress().done()).isNull();
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> outputs.logs("default", job.id(), 1, 0, 10).size() == 1);
    assertThat(harness.find(job).status()).isEqualTo(JobState.RUNNING);

    handler.release.countDown();
    harness.awaitState(job, JobState.SUCCEEDED, Duration.ofSeconds(10));
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> outputs.logs("default", job.id(), 2, 0, 10).size() == 2);

    List<LogLine> first = outputs.logs("default", job.id(), 1, 0, 10);
    assertThat(first).extracting(LogLine::seq).containsExactly(1, 2);
    assertThat(first.get(0).line()).isEqualTo("started attempt 1");
    assertThat(first.get(1).line()).hasSize(JobContext.MAX_LOG_LINE);
    assertThat(outputs.logs("default", job.id(), 2, 0, 10).get(0).line())
        .isEqualTo("started attempt 2");
    assertThat(outputs.logs("default", job.id(), 2, 1, 10))
        .extracting(LogLine::seq)
        .containsExactly(2);
    assertThat(outputs.lastLoggedAttempt("default", job.id())).contains(2);

    AttemptProgress last = outputs.latestProgress("default", job.id()).orElseThrow();
    assertThat(last.attempt()).isEqualTo(2);
    assertThat(last.progress().done()).isEqualTo(3L);
    assertThat(last.progress().total()).isEqualTo(4L);
    assertThat(last.progress().percent()).isEqualTo(75f);
    // Another namespace sees nothing of it.
    assertThat(outputs.latestProgress("other", job.id())).isEmpty();
    assertThat(outputs.logs("other", job.id(), 1, 0, 10)).isEmpty();
  }

  /** Logs more lines than an attempt keeps. */
  static final class Chatty implements JobHandler {
    @Override
    public String type() {
      return "chatty";
    }

    @Override
    public JobResult handle(JobContext ctx) throws NonRetryableException {
      int kept = 0;
      for (int i = 1; i <= 30; i++) {
        if (ctx.log("line " + i)) {
          kept++;
        }
      }
      if (kept != 20) {
        throw new NonRetryableException("kept " + kept);
      }
      return JobResult.success();
    }
  }

  @Test
  void anAttemptKeepsItsFirstLinesUpToTheCap() {
    settings.logLinesPerAttempt = 20;
    harness.start(settings, new JobHandlers().register(new Chatty()));
    Job job = harness.submit(aJob().type("chatty").build());
    harness.awaitState(job, JobState.SUCCEEDED, Duration.ofSeconds(10));
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> outputs.logs("default", job.id(), 1, 0, 100).size() == 20);
    List<LogLine> lines = outputs.logs("default", job.id(), 1, 0, 100);
    assertThat(lines.get(19).line()).isEqualTo("line 20");
  }
}
