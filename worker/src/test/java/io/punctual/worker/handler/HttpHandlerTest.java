package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.job.Backoff;
import io.punctual.common.job.Job;
import io.punctual.common.json.Json;
import io.punctual.worker.CallbackServer;
import io.punctual.worker.CallbackServer.Request;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.handler.http.HttpStatusException;
import io.punctual.worker.handler.http.WebhookSignature;
import io.punctual.worker.run.TestJobs;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpHandlerTest {
  private static final String SECRET = "whsec_test";

  private static HttpHandler handler(String secret) {
    WorkerSettings.Http http = new WorkerSettings.Http();
    http.signingSecret = secret;
    http.connectTimeout = Duration.ofSeconds(2);
    http.requestTimeout = Duration.ofSeconds(5);
    http.allow = List.of("127.0.0.1/32"); // the test receivers listen on loopback
    return new HttpHandler(http, Clock.systemUTC());
  }

  private static JobContext ctx(String url, int attempt) {
    JsonNode callback =
        Json.readTree("{\"url\":\"" + url + "\",\"headers\":{\"X-Tenant\":\"acme\"}}");
    Job job =
        TestJobs.running(
            "http", Json.readTree("{\"order\":42}"), attempt, 3, Backoff.DEFAULT, callback);
    return JobContext.of(job, null, () -> false, Clock.systemUTC());
  }

  @Test
  void postsThePayloadWithJobHeadersAndAVerifiableSignature() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{\"charged\":true}"))) {
      JobContext ctx = ctx(server.url(), 2);
      JobResult result = handler(SECRET).handle(ctx);

      assertThat(result.result()).isEqualTo(Json.readTree("{\"charged\":true}"));
      Request r = server.requests().get(0);
      assertThat(r.method()).isEqualTo("POST");
      assertThat(Json.readTree(r.body())).isEqualTo(Json.readTree("{\"order\":42}"));
      assertThat(r.header("Content-Type")).isEqualTo("application/json");
      assertThat(r.header("X-Tenant")).isEqualTo("acme");
      assertThat(r.header("Punctual-Job-Id")).isEqualTo(ctx.jobId().toString());
      assertThat(r.header("Punctual-Attempt")).isEqualTo("2");
      assertThat(r.header("Idempotency-Key")).isEqualTo("punctual:" + ctx.jobId());
      String signature = r.header(WebhookSignature.HEADER);
      assertThat(signature).matches("t=\\d+,v1=[0-9a-f]{64}");
      assertThat(
              WebhookSignature.verify(
                  SECRET, signature, r.body(), Instant.now(), Duration.ofMinutes(1)))
          .isTrue();
    }
  }

  @Test
  void noSecretMeansNoSignatureAndAnEmptyBodyMeansNoResult() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(204, ""))) {
      JobResult result = handler(null).handle(ctx(server.url(), 1));

      assertThat(result.result()).isNull();
      assertThat(server.requests().get(0).header(WebhookSignature.HEADER)).isNull();
    }
  }

  @Test
  void unavailableWithRetryAfterAsksForThatDelay() throws Exception {
    try (CallbackServer server =
        new CallbackServer(new Response(503, Map.of("Retry-After", "7"), "busy"))) {
      assertThatThrownBy(() -> handler(null).handle(ctx(server.url(), 1)))
          .isInstanceOfSatisfying(
              RetryAfterException.class,
              e -> {
                assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(7));
                assertThat(e.getMessage()).contains("503").contains("busy");
              });
    }
  }

  @Test
  void tooManyRequestsWithoutRetryAfterIsRetryable() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(429, ""))) {
      assertThatThrownBy(() -> handler(null).handle(ctx(server.url(), 1)))
          .isInstanceOfSatisfying(
              HttpStatusException.class, e -> assertThat(e.status()).isEqualTo(429));
    }
  }

  @Test
  void clientErrorsAreNotRetried() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(400, "bad order"))) {
      assertThatThrownBy(() -> handler(null).handle(ctx(server.url(), 1)))
          .isInstanceOf(NonRetryableException.class)
          .hasMessageContaining("HTTP 400")
          .hasMessageContaining("bad order");
    }
  }

  @Test
  void connectionRefusedIsARetryableIoError() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/hook";
    assertThatThrownBy(() -> handler(null).handle(ctx(url, 1))).isInstanceOf(IOException.class);
  }

  @Test
  void missingCallbackUrlIsABadJob() {
    Job job = TestJobs.running("http", "{}", 1, 3);
    JobContext ctx = JobContext.of(job, null, () -> false, Clock.systemUTC());
    assertThatThrownBy(() -> handler(null).handle(ctx))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("callback.url");
  }
}
