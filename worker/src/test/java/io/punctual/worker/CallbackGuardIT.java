package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.config.WorkerSettings;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker with the default callback policy: an {@code http} job whose host name resolves to
 * loopback fails on its first attempt, for good, with the address and the setting that would open
 * it, and the receiver is never called.
 */
class CallbackGuardIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  CallbackGuardIT() {
    harness.start(settings, harness.builtIns(settings));
  }

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void aCallbackToANameThatResolvesToLoopbackFailsWithoutRetry() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{\"secret\":1}"))) {
      int port = URI.create(server.url()).getPort();
      Job job =
          harness.submit(
              aJob()
                  .type("http")
                  .callback(Json.readTree("{\"url\":\"http://localhost:" + port + "/admin\"}"))
                  .backoff(new Backoff.Fixed(Duration.ofMillis(10)))
                  .maxAttempts(3)
                  .build());

      Job failed = harness.awaitState(job, JobState.FAILED);

      assertThat(failed.attempt()).isEqualTo(1);
      assertThat(failed.lastError())
          .matches(
              "callback\\.url resolves to (127\\.0\\.0\\.1|0:0:0:0:0:0:0:1), a loopback address;"
                  + " namespace default may reach it once an admin grants it \\(PUT"
                  + " /api/v1/namespaces/default/egress\\), within worker\\.http\\.allow");
      assertThat(failed.result()).isNull();
      assertThat(server.requests()).isEmpty();
    }
  }
}
