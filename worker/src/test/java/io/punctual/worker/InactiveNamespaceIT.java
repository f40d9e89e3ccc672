package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.namespace.Quota;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A worker leaves the jobs of a deactivated namespace alone, and takes them once reactivated. */
class InactiveNamespaceIT {
  private final WorkerHarness harness = new WorkerHarness();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void jobsOfAnInactiveNamespaceWaitUntilItIsReactivated() throws InterruptedException {
    harness.stores.namespaces().create("on", Quota.UNLIMITED);
    harness.stores.namespaces().create("off", Quota.UNLIMITED);
    harness.stores.namespaces().setActive("off", false);
    WorkerSettings settings = WorkerHarness.settings();
    settings.namespaces = List.of("on", "off");
    settings.namespaceRefresh = Duration.ofMillis(200);
    harness.start(settings, harness.builtIns(settings));

    Job waiting = harness.submit(aJob().namespace("off").type("noop").build());
    Job running = harness.submit(aJob().namespace("on").type("noop").build());

    harness.awaitState(running, JobState.SUCCEEDED);
    // Several claim passes and namespace reads later, the inactive namespace's job is untouched.
    Thread.sleep(1_000);
    assertThat(harness.find(waiting).status()).isEqualTo(JobState.PENDING);
    assertThat(harness.find(waiting).attempt()).isZero();

    harness.stores.namespaces().setActive("off", true);

    Job done = harness.awaitState(waiting, JobState.SUCCEEDED, Duration.ofSeconds(10));
    assertThat(done.attempt()).isEqualTo(1);
  }
}
