package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.config.QueueSettings;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PriorityIT {
  private static List<NewJob> jobs(Priority priority, int n, Instant runAt) {
    List<NewJob> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          aJob()
              .type("record")
              .priority(priority)
              .runAt(runAt)
              .payload(Json.readTree("{\"p\":\"" + priority.wireName() + "\"}"))
              .build());
    }
    return out;
  }

  /** Runs 20 low then 20 critical jobs, all due, one at a time; returns the priorities in order. */
  private static List<String> runOrder(QueueSettings queue) {
    try (WorkerHarness harness = new WorkerHarness(queue)) {
      Instant due = Instant.now().minusSeconds(1);
      harness.submit(jobs(Priority.LOW, 20, due));
      harness.submit(jobs(Priority.CRITICAL, 20, due));
      WorkerSettings settings = WorkerHarness.settings();
      settings.concurrency = 1;
      RecordingHandler recorder = new RecordingHandler("record");
      harness.start(settings, new JobHandlers().register(recorder));
      await().atMost(Duration.ofSeconds(20)).until(() -> recorder.runs().size() == 40);
      return recorder.runs().stream().map(r -> r.ctx().payload().get("p").asText()).toList();
    }
  }

  @Test
  void strictPriorityRunsEveryCriticalJobBeforeAnyLowOne() {
    QueueSettings queue = new QueueSettings();
    queue.strictPriority = true;

    List<String> order = runOrder(queue);

    assertThat(order.subList(0, 20)).containsOnly("critical");
    assertThat(order.subList(20, 40)).containsOnly("low");
  }

  @Test
  void weightedPriorityFavoursCriticalButStillServesLow() {
    List<String> order = runOrder(new QueueSettings()); // critical 8 : low 1

    List<String> first18 = order.subList(0, 18);
    assertThat(first18.stream().filter("low"::equals).count()).isBetween(1L, 3L);
    assertThat(first18.stream().filter("critical"::equals).count()).isGreaterThanOrEqualTo(15L);
  }
}
