package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.outbound.signing.SigningSecret;
import io.punctual.outbound.signing.WebhookSignature;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.worker.CallbackServer.Request;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class HttpWorkerIT {
  /** A credential a job gives its callback: it goes to the receiver and nowhere else. */
  private static final String TOKEN = "Bearer tok-7f3a9c";

  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();

  /** Two secrets of namespace default active at once, as while rotating. */
  private final String oldSecret = made("default");

  private final String newSecret = made("default");

  /** Namespace billing's own secret. */
  private final String billingSecret = made("billing");

  HttpWorkerIT() {
    settings.namespaces = List.of("default", "billing");
    settings.http.allow = List.of("127.0.0.1/32"); // the receivers listen on loopback
    harness.allowLoopbackCallbacks("default");
    harness.allowLoopbackCallbacks("billing");
    harness.start(settings, harness.builtIns(settings));
  }

  private String made(String namespace) {
    return SigningSecret.ofKey(harness.signingSecrets().create(namespace).orElseThrow().key())
        .text();
  }

  @AfterEach
  void close() {
    harness.close();
  }

  private Job submit(CallbackServer server) {
    return submit(server, "default");
  }

  private Job submit(CallbackServer server, String namespace) {
    return harness.submit(
        aJob()
            .namespace(namespace)
            .type("http")
            .payload(Json.readTree("{\"invoice\":\"INV-1\"}"))
            .callback(
                Json.readTree(
                    "{\"url\":\""
                        + server.url()
                        + "\",\"headers\":{\"Authorization\":\""
                        + TOKEN
                        + "\"}}"))
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
      assertThat(r.header("Authorization")).isEqualTo(TOKEN);
      assertVerifiesWithEverySecret(r, job);
    }
  }

  /**
   * What a receiver does: each active secret of the namespace, on its own, verifies the request as
   * received; another namespace's secret, or a made-up one, does not.
   */
  private void assertVerifiesWithEverySecret(Request r, Job job) {
    assertThat(r.header(WebhookSignature.ID)).isEqualTo(job.id().toString());
    assertThat(r.header(WebhookSigner.NAMESPACE)).isEqualTo("default");
    assertThat(r.header(WebhookSignature.SIGNATURE).split(" ")).hasSize(2);
    for (String secret : List.of(oldSecret, newSecret)) {
      assertThat(verifies(secret, r))
          .as("verified with secret %d", List.of(oldSecret, newSecret).indexOf(secret))
          .isTrue();
    }
    assertThat(verifies(billingSecret, r)).as("verified with billing's secret").isFalse();
    assertThat(verifies("whsec_" + Base64.getEncoder().encodeToString(new byte[32]), r)).isFalse();
  }

  private static boolean verifies(String secret, Request r) {
    return WebhookSignature.verify(
        secret,
        r.header(WebhookSignature.ID),
        r.header(WebhookSignature.TIMESTAMP),
        r.header(WebhookSignature.SIGNATURE),
        r.body().getBytes(UTF_8),
        Instant.now(),
        WebhookSignature.DEFAULT_TOLERANCE);
  }

  @Test
  void aNamespacesDeliveryVerifiesWithItsOwnSecretOnly() throws Exception {
    try (CallbackServer server = new CallbackServer(Response.of(200, "{}"))) {
      Job job = submit(server, "billing");

      harness.awaitState(job, JobState.SUCCEEDED);

      Request r = server.requests().get(0);
      assertThat(r.header(WebhookSigner.NAMESPACE)).isEqualTo("billing");
      assertThat(r.header(WebhookSignature.SIGNATURE).split(" ")).hasSize(1);
      assertThat(verifies(billingSecret, r)).isTrue();
      assertThat(verifies(oldSecret, r)).as("verified with default's secret").isFalse();
      assertThat(verifies(newSecret, r)).as("verified with default's secret").isFalse();
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
      requests.forEach(r -> assertVerifiesWithEverySecret(r, job));
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

  private Job submitTo(String url) {
    return harness.submit(
        aJob()
            .type("http")
            .callback(
                Json.readTree(
                    "{\"url\":\"" + url + "\",\"headers\":{\"Authorization\":\"" + TOKEN + "\"}}"))
            .backoff(new Backoff.Fixed(Duration.ofMillis(10)))
            .maxAttempts(2)
            .build());
  }

  /**
   * Every log line of a worker running callbacks that fail (an error answer, a refused connection
   * to a URL with credentials and a query), at DEBUG for Punctual and the HTTP client, with the
   * client's header and wire logs off as the bundled configuration has them: none shows a callback
   * header's value, a signing secret or the URL's credentials and query.
   */
  @Test
  void neitherHeaderValuesNorSecretsNorUrlCredentialsReachTheLogs() throws Exception {
    LoggerContext logs = (LoggerContext) LoggerFactory.getILoggerFactory();
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.setContext(logs);
    captured.start();
    Logger root = logs.getLogger(Logger.ROOT_LOGGER_NAME);
    Map<String, Level> levels =
        Map.of(
            "io.punctual", Level.DEBUG,
            "org.apache.hc", Level.DEBUG,
            "org.apache.hc.client5.http.headers", Level.OFF,
            "org.apache.hc.client5.http.wire", Level.OFF);
    Map<String, Level> before = new java.util.HashMap<>();
    levels.forEach(
        (name, level) -> {
          before.put(name, logs.getLogger(name).getLevel());
          logs.getLogger(name).setLevel(level);
        });
    root.addAppender(captured);
    try (CallbackServer server = new CallbackServer(Response.of(400, "unknown invoice"))) {
      int closed;
      try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
        closed = s.getLocalPort();
      }
      Job rejected = submit(server);
      Job unreachable = submitTo("http://127.0.0.1:" + closed + "/hook?token=t0ken");
      Job withCredentials =
          submitTo(server.url().replace("http://", "http://alice:pa55word@") + "?token=t0ken");

      harness.awaitState(rejected, JobState.FAILED);
      Job failed = harness.awaitState(unreachable, JobState.FAILED);
      Job refused = harness.awaitState(withCredentials, JobState.FAILED);

      assertThat(failed.lastError()).contains("127.0.0.1").doesNotContain("t0ken");
      assertThat(harness.executions(unreachable))
          .hasSize(2)
          .allSatisfy(e -> assertThat(e.error()).doesNotContain("t0ken", TOKEN));
      assertThat(refused.lastError())
          .startsWith("callback.url must not carry credentials")
          .doesNotContain("pa55word");
      assertThat(server.requests()).hasSize(1); // the rejected job's only
      // The capture saw the failures themselves (so it would have seen a leak in them); they are
      // logged once written, which may be just after the job reads as FAILED.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(lines(captured))
                      .anyMatch(l -> l.contains("unknown invoice"))
                      .anyMatch(l -> l.contains("Connection refused"))
                      .anyMatch(l -> l.contains("must not carry credentials")));
    } finally {
      root.detachAppender(captured);
      before.forEach((name, level) -> logs.getLogger(name).setLevel(level));
    }
    List<String> lines = lines(captured);
    String secretKey = oldSecret.substring("whsec_".length());
    String otherKey = newSecret.substring("whsec_".length());
    assertThat(lines)
        .allSatisfy(
            l ->
                assertThat(l)
                    .doesNotContain(TOKEN)
                    .doesNotContain("tok-7f3a9c")
                    .doesNotContain(secretKey)
                    .doesNotContain(otherKey)
                    .doesNotContain("pa55word")
                    .doesNotContain("t0ken"));
  }

  /** Each captured event as text: message, MDC and stack trace. */
  private static List<String> lines(ListAppender<ILoggingEvent> captured) {
    List<ILoggingEvent> events;
    synchronized (captured) { // AppenderBase appends under this lock
      events = List.copyOf(captured.list);
    }
    return events.stream()
        .map(
            e ->
                e.getFormattedMessage()
                    + " "
                    + e.getMDCPropertyMap()
                    + " "
                    + (e.getThrowableProxy() == null
                        ? ""
                        : ThrowableProxyUtil.asString(e.getThrowableProxy())))
        .toList();
  }
}
