package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code worker.claimAhead}: a job is claimed (RUNNING in PostgreSQL, its round trips done) before
 * it is due, and its handler starts at its runAt, never before; with 0 nothing is claimed early.
 */
class ClaimAheadIT {
  @Test
  void aJobIsClaimedAheadAndItsHandlerStartsAtItsRunAt() {
    try (WorkerHarness harness = new WorkerHarness()) {
      WorkerSettings settings = WorkerHarness.settings();
      settings.claimAhead = Duration.ofSeconds(1);
      RecordingHandler recorder = new RecordingHandler("stamp");
      Worker worker = harness.start(settings, new JobHandlers().register(recorder));
      await().atMost(Duration.ofSeconds(5)).until(worker::isIdle);

      Job job = harness.submit(aJob().type("stamp").runAt(Instant.now().plusMillis(2500)).build());
      List<Instant> seenRunningAt = new CopyOnWriteArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                if (harness.find(job).status() == JobState.RUNNING && recorder.runs().isEmpty()) {
                  seenRunningAt.add(Instant.now());
                }
                return recorder.runs().size() == 1;
              });

      assertThat(seenRunningAt).as("claimed while not yet due").isNotEmpty();
      assertThat(seenRunningAt.get(0)).isBefore(job.runAt());
      Instant started = recorder.runs().get(0).startedAt();
      assertThat(started).isAfterOrEqualTo(job.runAt()).isBefore(job.runAt().plusMillis(500));
      Job done = harness.awaitState(job, JobState.SUCCEEDED);
      assertThat(done.startedAt()).as("the handler's start").isEqualTo(job.runAt());
      Instant recorded = harness.executions(job).get(0).startedAt();
      assertThat(recorded)
          .as("the execution row: when the handler really started, by the worker's measure")
          .isAfterOrEqualTo(job.runAt().truncatedTo(ChronoUnit.MILLIS))
          .isBefore(started.plusMillis(50));
    }
  }

  @Test
  void withoutClaimAheadAJobIsClaimedOnlyOnceDue() {
    try (WorkerHarness harness = new WorkerHarness()) {
      WorkerSettings settings = WorkerHarness.settings();
      settings.claimAhead = Duration.ZERO;
      RecordingHandler recorder = new RecordingHandler("stamp");
      Worker worker = harness.start(settings, new JobHandlers().register(recorder));
      await().atMost(Duration.ofSeconds(5)).until(worker::isIdle);

      Job job = harness.submit(aJob().type("stamp").runAt(Instant.now().plusMillis(1500)).build());
      List<JobState> before = new CopyOnWriteArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                JobState state = harness.find(job).status();
                if (Instant.now().isBefore(job.runAt().minusMillis(50))) {
                  before.add(state);
                }
                return recorder.runs().size() == 1;
              });

      assertThat(before).isNotEmpty().containsOnly(JobState.PENDING);
      assertThat(recorder.runs().get(0).startedAt()).isAfterOrEqualTo(job.runAt());
    }
  }
}
