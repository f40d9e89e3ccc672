package io.punctual.worker;

import static io.punctual.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.job.Backoff;
import io.punctual.common.job.Execution;
import io.punctual.common.job.ExecutionStatus;
import io.punctual.common.job.Job;
import io.punctual.common.job.JobState;
import io.punctual.common.json.Json;
import io.punctual.worker.CallbackServer.Request;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.http.WebhookSignature;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HttpWorkerIT {
  private static final String SECRET = "whsec_it";
  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  HttpWorkerIT() {
    settings.http.signingSecret = SECRET;
    settings.http.allow = List.of("127.0.0.1/32"); // the receivers listen on loopback
    harness.start(settings, JobHandlers.withBuiltIns(settings, Clock.systemUTC()));
  }

  @AfterEach
  void close() {
    harness.close();
  }

  private Job submit(CallbackServer server) {
    return harness.submit(
        aJob()
            .type("http")
            .payload(Json.readTree("{\"invoice\":\"INV-1\"}"))
            .callback(Json.readTree("{\"url\":\"" + server.url() + "\"}"))
            .backoff(new Backoff.Fixed(Duration.ofMillis(10)))
            .maxAttempts(3)
            .build());
  }

  @Test
  void successStoresTheResponseAndSignsTheRequest() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{\"paid\":true}"))) {
      Job job = submit(server);

      Job done = harness.awaitState(job, JobState.SUCCEEDED);

      assertThat(done.result()).isEqualTo(Json.readTree("{\"paid\":true}"));
      Request r = server.requests().get(0);
      assertThat(r.header("Punctual-Job-Id")).isEqualTo(job.id().toString());
      assertThat(r.header("Idempotency-Key")).isEqualTo("punctual:" + job.id());
      assertThat(
              WebhookSignature.verify(
                  SECRET,
                  r.header("Punctual-Signature"),
                  r.body(),
                  Instant.now(),
                  Duration.ofMinutes(1)))
          .isTrue();
    }
  }

  @Test
  void unavailableIsRetriedNoSoonerThanRetryAfter() throws Exception {
    try (CallbackServer server =
        new CallbackServer(
            new Response(503, Map.of("Retry-After", "1"), "maintenance"), Response.of(200, "{}"))) {
      Job job = submit(server);

      harness.awaitState(job, JobState.SUCCEEDED);

      List<Execution> executions = harness.executions(job);
      assertThat(executions)
          .extracting(Execution::status)
          .containsExactly(ExecutionStatus.FAILED, ExecutionStatus.SUCCEEDED);
      assertThat(executions.get(0).error()).contains("HTTP 503");
      assertThat(executions.get(1).startedAt())
          .isAfterOrEqualTo(executions.get(0).finishedAt().plusSeconds(1));
      List<Request> requests = server.requests();
      assertThat(requests).hasSize(2);
      assertThat(requests.get(1).header("Punctual-Attempt")).isEqualTo("2");
      assertThat(requests.get(1).header("Idempotency-Key"))
          .isEqualTo(requests.get(0).header("Idempotency-Key"));
    }
  }

  @Test
  void aClientErrorFailsTheJobWithoutRetry() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(400, "unknown invoice"))) {
      Job job = submit(server);

      Job failed = harness.awaitState(job, JobState.FAILED);

      assertThat(failed.attempt()).isEqualTo(1);
      assertThat(failed.lastError()).contains("HTTP 400").contains("unknown invoice");
      assertThat(server.requests()).hasSize(1);
    }
  }
}
