package io.punctual.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LivenessIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  @AfterEach
  void close() {
    harness.close();
  }

  private Double deadline() {
    return harness
        .stores
        .redis()
        .sync()
        .zscore(
            harness.stores.keys().workersAlive(),
            settings.livenessTtl.toMillis() + ":" + settings.workerId);
  }

  @Test
  void aStartedWorkerKeepsReportingAliveAndLeavesWhenItStops() {
    settings.livenessInterval = Duration.ofMillis(100);
    settings.livenessTtl = Duration.ofMillis(400);
    Worker worker = harness.start(settings, harness.builtIns(settings));
    assertThat(deadline()).as("in the live set before its first claim").isNotNull();
    double first = deadline();

    await().atMost(Duration.ofSeconds(3)).until(() -> deadline() > first);
    assertThat(harness.stores.liveness().expired(10).dead()).isEmpty();

    worker.close();
    assertThat(deadline()).as("nothing left running: it left the set").isNull();
  }

  @Test
  void livenessSettingsAreChecked() {
    settings.livenessInterval = Duration.ofSeconds(3);
    settings.livenessTtl = Duration.ofSeconds(5);
    org.assertj.core.api.Assertions.assertThatThrownBy(settings::validate)
        .hasMessageContaining("worker.livenessTtl must be at least twice worker.livenessInterval");
  }
}
