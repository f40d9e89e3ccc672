package io.punctual.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.store.registry.WorkerRegistry.LiveWorker;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A worker registers the job types it has handlers for (what a job's diagnosis reads). */
class RegistrationTypesIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void aStartedWorkerIsLiveWithItsHandlerTypes() {
    harness.start(settings, harness.builtIns(settings));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              List<LiveWorker> live = harness.stores.workers().live("default");
              assertThat(live).extracting(LiveWorker::id).contains(settings.workerId);
              LiveWorker me =
                  live.stream().filter(w -> w.id().equals(settings.workerId)).findFirst().get();
              assertThat(me.types()).contains("noop", "sleep", "fail", "http");
            });
  }
}
