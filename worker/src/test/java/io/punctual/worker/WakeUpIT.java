package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.model.Job;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** An idle worker is woken by the enqueue announcement, not by its (long) idle timeout. */
class WakeUpIT {
  @Test
  void anIdleWorkerRunsANewJobWhenItBecomesDue() {
    try (WorkerHarness harness = new WorkerHarness()) {
      WorkerSettings settings = WorkerHarness.settings();
      settings.maxIdleWait = Duration.ofSeconds(30);
      RecordingHandler recorder = new RecordingHandler("stamp");
      Worker worker = harness.start(settings, new JobHandlers().register(recorder));
      await().atMost(Duration.ofSeconds(5)).until(worker::isIdle);

      Job job = harness.submit(aJob().type("stamp").runAt(Instant.now().plusMillis(200)).build());

      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.runs().size() == 1);
      Instant started = recorder.runs().get(0).startedAt();
      assertThat(started).isAfterOrEqualTo(job.runAt());
      assertThat(started).isBefore(job.runAt().plusSeconds(1));
    }
  }

  @Test
  void aWakeForALaterJobDoesNotRunItEarly() {
    try (WorkerHarness harness = new WorkerHarness()) {
      WorkerSettings settings = WorkerHarness.settings();
      settings.maxIdleWait = Duration.ofSeconds(30);
      RecordingHandler recorder = new RecordingHandler("stamp");
      Worker worker = harness.start(settings, new JobHandlers().register(recorder));
      await().atMost(Duration.ofSeconds(5)).until(worker::isIdle);

      Job later = harness.submit(aJob().type("stamp").runAt(Instant.now().plusMillis(600)).build());
      Job sooner =
          harness.submit(aJob().type("stamp").runAt(Instant.now().plusMillis(100)).build());

      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.runs().size() == 2);
      assertThat(recorder.runs().get(0).ctx().jobId()).isEqualTo(sooner.id());
      assertThat(recorder.runs().get(0).startedAt()).isAfterOrEqualTo(sooner.runAt());
      assertThat(recorder.runs().get(1).ctx().jobId()).isEqualTo(later.id());
      assertThat(recorder.runs().get(1).startedAt())
          .isAfterOrEqualTo(later.runAt())
          .isBefore(later.runAt().plusSeconds(1));
    }
  }
}
