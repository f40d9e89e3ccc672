package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.model.NewJob;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two workers (separate connections, as two processes) compete for the same jobs. */
class ThroughputIT {
  private static final int JOBS = 5_000;

  @Test
  void everyJobRunsExactlyOnceAcrossCompetingWorkers() {
    try (WorkerHarness harness = new WorkerHarness()) {
      MetricRegistry m1 = new MetricRegistry();
      MetricRegistry m2 = new MetricRegistry();
      WorkerSettings s1 = WorkerHarness.settings();
      WorkerSettings s2 = WorkerHarness.settings();
      harness.startSeparate(s1, harness.builtIns(s1), m1);
      harness.startSeparate(s2, harness.builtIns(s2), m2);

      long started = System.nanoTime();
      for (int batch = 0; batch < JOBS / 1_000; batch++) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
          jobs.add(aJob().type("noop").runAt(Instant.now()).build());
        }
        harness.submit(jobs);
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> harness.count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'") == JOBS);
      long ms = (System.nanoTime() - started) / 1_000_000;

      assertThat(harness.count("SELECT count(*) FROM job_executions")).isEqualTo(JOBS);
      assertThat(harness.count("SELECT count(DISTINCT job_id) FROM job_executions"))
          .isEqualTo(JOBS);
      assertThat(harness.count("SELECT count(*) FROM job_executions WHERE attempt <> 1")).isZero();
      assertThat(harness.count("SELECT count(*) FROM job_executions WHERE status <> 'SUCCEEDED'"))
          .isZero();
      long claimed1 = m1.meter("punctual.worker.claimed").getCount();
      long claimed2 = m2.meter("punctual.worker.claimed").getCount();
      assertThat(claimed1 + claimed2).isEqualTo(JOBS);
      assertThat(claimed1).isPositive();
      assertThat(claimed2).isPositive();
      assertThat(m1.meter("punctual.worker.staleRefused").getCount()).isZero();
      assertThat(m2.meter("punctual.worker.staleRefused").getCount()).isZero();
      System.out.printf(
          "%d jobs by two workers in %d ms (%d / %d)%n", JOBS, ms, claimed1, claimed2);
    }
  }
}
