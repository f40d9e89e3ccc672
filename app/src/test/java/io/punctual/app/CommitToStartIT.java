package io.punctual.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.client.JobRequest;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * How long a job submitted in the application's transaction waits, from its commit to its handler's
 * start on the embedded worker: one job per transaction, one after another, each enqueued after its
 * commit. Prints p50, p99 and the maximum; holds every job to exactly one run.
 */
class CommitToStartIT {
  private static final int JOBS = 300;

  @Test
  void commitToHandlerStart() throws Exception {
    try (EmbeddedHarness app = new EmbeddedHarness()) {
      RecordingHandler handler = new RecordingHandler("latency.probe");
      app.startWorker(app.worker().handler(handler).concurrency(64));
      Map<UUID, Instant> committed = new HashMap<>();
      List<Long> submitMicros = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        try (Connection c = app.appPool.getConnection()) {
          c.setAutoCommit(false);
          long before = System.nanoTime();
          Submission s = app.jobs.submit(c, JobRequest.builder("latency.probe").build());
          submitMicros.add((System.nanoTime() - before) / 1_000);
          c.commit();
          committed.put(s.id(), Instant.now());
          s.enqueue();
        }
        Thread.sleep(10); // spaced out: latency, not throughput
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> handler.runs.size() >= JOBS);
      Thread.sleep(500);
      assertThat(handler.runs).hasSize(JOBS);
      List<Long> waits = new ArrayList<>();
      for (RecordingHandler.Run run : handler.runs) {
        assertThat(handler.runsOf(run.jobId())).isEqualTo(1);
        waits.add(Duration.between(committed.get(run.jobId()), run.startedAt()).toMillis());
      }
      waits.sort(null);
      submitMicros.sort(null);
      System.out.printf(
          "commit -> handler start over %d jobs: p50 %d ms, p99 %d ms, max %d ms;"
              + " submit in the transaction: p50 %d us, p99 %d us%n",
          JOBS,
          waits.get(JOBS / 2),
          waits.get(JOBS * 99 / 100),
          waits.get(JOBS - 1),
          submitMicros.get(JOBS / 2),
          submitMicros.get(JOBS * 99 / 100));
      assertThat(waits.get(JOBS / 2)).isLessThan(1_000);
    }
  }
}
