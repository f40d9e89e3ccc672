package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.handler.RetryAfterException;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.outbound.signing.WebhookSignature;
import io.punctual.store.namespace.Egress;
import io.punctual.worker.CallbackServer;
import io.punctual.worker.CallbackServer.Request;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.handler.http.HttpStatusException;
import io.punctual.worker.run.TestJobs;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpHandlerTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final Instant NOW = Instant.parse("2026-11-26T02:00:00Z");

  private static HttpHandler handler(String... secrets) {
    return handler(TestSigning.tenancy(TestSigning.with(secrets), TestSigning.LOOPBACK_GRANT));
  }

  private static HttpHandler handler(HttpHandler.Tenancy tenancy) {
    HttpSettings http = new HttpSettings();
    http.connectTimeout = Duration.ofSeconds(2);
    http.requestTimeout = Duration.ofSeconds(5);
    http.allow = List.of("127.0.0.1/32"); // the deployment's ceiling lets loopback be granted
    return new HttpHandler(http, Clock.fixed(NOW, ZoneOffset.UTC), tenancy, null);
  }

  private static JobContext ctx(String url, int attempt) {
    return ctx(job(url, attempt));
  }

  private static JobContext ctx(Job job) {
    return JobContext.of(job, null, () -> false, Clock.systemUTC());
  }

  private static Job job(String url, int attempt) {
    JsonNode callback =
        Json.readTree("{\"url\":\"" + url + "\",\"headers\":{\"X-Tenant\":\"acme\"}}");
    return TestJobs.running(
        "http", Json.readTree("{\"order\":42}"), attempt, 3, Backoff.DEFAULT, callback);
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
      assertThat(r.header(WebhookSignature.ID)).isEqualTo(ctx.jobId().toString());
      assertThat(r.header(WebhookSignature.TIMESTAMP))
          .isEqualTo(Long.toString(NOW.getEpochSecond()));
      String signature = r.header(WebhookSignature.SIGNATURE);
      assertThat(signature).matches("v1,[A-Za-z0-9+/]{43}=");
      assertThat(
              WebhookSignature.verify(
                  SECRET,
                  r.header(WebhookSignature.ID),
                  r.header(WebhookSignature.TIMESTAMP),
                  signature,
                  r.body(),
                  NOW,
                  Duration.ofMinutes(1)))
          .isTrue();
    }
  }

  @Test
  void noSecretMeansNoSignatureAndAnEmptyBodyMeansNoResult() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(204, ""))) {
      JobContext ctx = ctx(server.url(), 1);
      JobResult result = handler().handle(ctx);

      assertThat(result.result()).isNull();
      Request r = server.requests().get(0);
      assertThat(r.header(WebhookSignature.SIGNATURE)).isNull();
      assertThat(r.header(WebhookSignature.ID)).isEqualTo(ctx.jobId().toString());
    }
  }

  @Test
  void unavailableWithRetryAfterAsksForThatDelay() throws Exception {
    try (CallbackServer server =
        new CallbackServer(new Response(503, Map.of("Retry-After", "7"), "busy"))) {
      assertThatThrownBy(() -> handler().handle(ctx(server.url(), 1)))
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
      assertThatThrownBy(() -> handler().handle(ctx(server.url(), 1)))
          .isInstanceOfSatisfying(
              HttpStatusException.class, e -> assertThat(e.status()).isEqualTo(429));
    }
  }

  @Test
  void clientErrorsAreNotRetried() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(400, "bad order"))) {
      assertThatThrownBy(() -> handler().handle(ctx(server.url(), 1)))
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
    assertThatThrownBy(() -> handler().handle(ctx(url, 1))).isInstanceOf(IOException.class);
  }

  @Test
  void missingCallbackUrlIsABadJob() {
    Job job = TestJobs.running("http", "{}", 1, 3);
    JobContext ctx = JobContext.of(job, null, () -> false, Clock.systemUTC());
    assertThatThrownBy(() -> handler().handle(ctx))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("callback.url");
  }

  @Test
  void everyActiveSecretSignsAndRetriesKeepTheWebhookId() throws Exception {
    String second = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
    try (CallbackServer server = new CallbackServer(Response.of(200, ""))) {
      Job job = job(server.url(), 1);
      JobContext first = ctx(job);
      JobContext retry = ctx(TestJobs.withAttempt(job, 2));
      HttpHandler handler = handler(SECRET, second);
      handler.handle(first);
      handler.handle(retry);

      List<Request> requests = server.requests();
      assertThat(requests)
          .extracting(r -> r.header(WebhookSignature.ID))
          .containsOnly(first.jobId().toString());
      for (Request r : requests) {
        assertThat(r.header(WebhookSignature.SIGNATURE).split(" ")).hasSize(2);
        for (String secret : List.of(SECRET, second)) {
          assertThat(
                  WebhookSignature.verify(
                      secret,
                      r.header(WebhookSignature.ID),
                      r.header(WebhookSignature.TIMESTAMP),
                      r.header(WebhookSignature.SIGNATURE),
                      r.body(),
                      NOW,
                      WebhookSignature.DEFAULT_TOLERANCE))
              .isTrue();
        }
      }
    }
  }

  @Test
  void aFailedExchangeNamesNeitherTheUrlsQueryNorTheHeaderValues() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/hook?token=t0ken#frag";
    Throwable thrown = catchThrowable(() -> handler(SECRET).handle(ctx(url, 1)));

    assertThat(thrown).isInstanceOf(IOException.class);
    String everything = thrown + "\n" + stackTrace(thrown);
    assertThat(everything)
        .contains("127.0.0.1")
        .doesNotContain("t0ken")
        .doesNotContain("frag")
        .doesNotContain("acme")
        .doesNotContain(SECRET.substring(6));
  }

  @Test
  void aCallbackUrlWithCredentialsFailsForGoodWithoutShowingThem() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, ""))) {
      String url = server.url().replace("http://", "http://alice:pa55word@");
      Throwable thrown = catchThrowable(() -> handler(SECRET).handle(ctx(url, 1)));

      assertThat(thrown)
          .isInstanceOf(NonRetryableException.class)
          .hasMessageContaining("callback.url must not carry credentials");
      assertThat(thrown + "\n" + stackTrace(thrown)).doesNotContain("pa55word", "alice");
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void aRedirectToAUrlWithCredentialsIsNotFollowed() throws Exception {
    try (CallbackServer server =
        new CallbackServer(
            new Response(307, Map.of("Location", "http://bob:s3cret@127.0.0.1:1/x?k=v"), ""))) {
      Throwable thrown = catchThrowable(() -> handler().handle(ctx(server.url(), 1)));

      assertThat(thrown)
          .isInstanceOf(NonRetryableException.class)
          .hasMessage(
              "callback answered HTTP 307 to a Location with credentials (http://127.0.0.1:1);"
                  + " not followed");
      assertThat(stackTrace(thrown)).doesNotContain("s3cret", "k=v");
    }
  }

  @Test
  void anEndpointThatEchoesTheRequestDoesNotPutTheHeaderValuesIntoTheError() throws Exception {
    String token = "Bearer 9f8e7d6c5b";
    try (CallbackServer server =
        new CallbackServer(Response.of(401, "bad Authorization: " + token + " for tenant acme"))) {
      JsonNode callback =
          Json.readTree(
              "{\"url\":\""
                  + server.url()
                  + "\",\"headers\":{\"Authorization\":\""
                  + token
                  + "\",\"X-Tenant\":\"acme\"}}");
      Job job = TestJobs.running("http", Json.readTree("{}"), 1, 3, Backoff.DEFAULT, callback);

      assertThatThrownBy(() -> handler().handle(ctx(job)))
          .isInstanceOf(NonRetryableException.class)
          .hasMessage("callback answered HTTP 401: bad Authorization: (hidden) for tenant acme");
      assertThat(server.requests().get(0).header("Authorization")).isEqualTo(token);
    }
  }

  private static String stackTrace(Throwable t) {
    java.io.StringWriter out = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  @Test
  void aNamespaceThatDoesNotKeepAnswersRecordsTheStatusOnly() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{\"internal\":\"data\"}"))) {
      HttpHandler handler =
          handler(
              TestSigning.tenancy(TestSigning.SIGNER, new Egress(List.of("127.0.0.1/32"), false)));

      JobResult result = handler.handle(ctx(server.url(), 1));

      assertThat(result.result()).isEqualTo(Json.readTree("{\"status\":200}"));
    }
  }

  @Test
  void aKeptAnswerHidesTheCallbacksHeaderValuesItRepeats() throws Exception {
    try (CallbackServer server =
        new CallbackServer(
            Response.of(
                200,
                "{\"echo\":{\"X-Tenant\":\"acme\",\"Authorization\":\"Bearer s3cr3t\\\"x\"}}"))) {
      Job job =
          TestJobs.running(
              "http",
              Json.readTree("{}"),
              1,
              3,
              Backoff.DEFAULT,
              Json.readTree(
                  "{\"url\":\""
                      + server.url()
                      + "\",\"headers\":{\"Authorization\":\"Bearer s3cr3t\\\"x\"}}"));

      JobResult result = handler(SECRET).handle(ctx(job));

      assertThat(result.result().path("echo").path("Authorization").asText()).isEqualTo("(hidden)");
      assertThat(result.result().path("echo").path("X-Tenant").asText()).isEqualTo("acme");
      assertThat(result.result().toString()).doesNotContain("s3cr3t");
    }
  }

  @Test
  void aNamespaceReachesOnlyWhatItWasGrantedWithinTheDeploymentsCeiling() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{}"))) {
      HttpHandler ungranted = handler(TestSigning.PUBLIC_ONLY);
      HttpHandler beyondTheCeiling =
          handler(
              TestSigning.tenancy(
                  TestSigning.SIGNER, new Egress(List.of("10.0.0.0/8", "127.0.0.1/32"), true)));

      assertThatThrownBy(() -> ungranted.handle(ctx(server.url(), 1)))
          .isInstanceOf(NonRetryableException.class)
          .hasMessageContaining("127.0.0.1, a loopback address")
          .hasMessageContaining("PUT /api/v1/namespaces/default/egress");
      assertThat(server.requests()).isEmpty();
      // 127.0.0.1/32 is within the ceiling: granted, it is reached; 10.0.0.0/8 is not, and opens
      // nothing.
      assertThat(beyondTheCeiling.handle(ctx(server.url(), 1)).result()).isNotNull();
      assertThat(server.requests()).hasSize(1);
    }
  }
}
