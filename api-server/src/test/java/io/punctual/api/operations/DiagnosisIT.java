package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.diagnosis.Diagnoser;
import io.punctual.api.diagnosis.Diagnosis;
import io.punctual.api.diagnosis.Reason;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.store.registry.WorkerRegistry.Registration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DiagnosisIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  final Jobs jobs = new Jobs(FIXTURE);

  @Test
  void aJobDueLaterSaysWhen() {
    HttpSupport http = served("diag-later", List.of("noop"));
    String dueAt = FIXTURE.clock.instant().plus(Duration.ofHours(2)).toString();
    String id = jobs.submit(http, "{\"type\":\"noop\",\"runAt\":\"" + dueAt + "\"}");

    JsonNode d = diagnose(http, id);

    assertThat(d.get("jobId").asText()).isEqualTo(id);
    assertThat(d.get("status").asText()).isEqualTo("PENDING");
    assertThat(codes(d)).containsExactly("DUE_LATER");
    assertThat(d.get("reasons").get(0).get("dueAt").asText()).isEqualTo(dueAt);
    assertThat(d.get("reasons").get(0).get("message").asText()).contains(dueAt);
  }

  @Test
  void aBlockedJobNamesTheJobsItStillWaitsFor() {
    HttpSupport http = served("diag-blocked", List.of("noop"));
    String x = jobs.submit(http, "{\"type\":\"noop\"}");
    String y = jobs.submit(http, "{\"type\":\"noop\"}");
    String z = jobs.submit(http, "{\"type\":\"noop\"}");
    String id =
        jobs.submit(
            http, "{\"type\":\"noop\",\"dependsOn\":[\"" + x + "\",\"" + y + "\",\"" + z + "\"]}");
    jobs.succeed(z);

    JsonNode d = diagnose(http, id);

    assertThat(d.get("status").asText()).isEqualTo("BLOCKED");
    assertThat(codes(d)).containsExactly("WAITING_FOR_DEPENDENCIES");
    List<String> waited = new ArrayList<>();
    d.get("reasons").get(0).get("jobIds").forEach(n -> waited.add(n.asText()));
    assertThat(waited).containsExactlyInAnyOrder(x, y);
  }

  @Test
  void noLiveWorkerForTheNamespace() {
    HttpSupport http = FIXTURE.http().namespace("diag-nobody");
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "diag-elsewhere", "h", 1, List.of("diag-other"), 4, Duration.ofSeconds(5)));
    // A worker of the namespace that stopped beating long ago is not live either.
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration("diag-gone", "h", 1, List.of("diag-nobody"), 4, Duration.ofMillis(1)));
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    String id = jobs.submit(http, "{\"type\":\"noop\"}");

    JsonNode d = diagnose(http, id);

    assertThat(codes(d)).containsExactly("NO_LIVE_WORKER_FOR_NAMESPACE");
    assertThat(d.get("reasons").get(0).get("namespace").asText()).isEqualTo("diag-nobody");
  }

  @Test
  void noLiveWorkerHasAHandlerForTheType() {
    HttpSupport http = served("diag-type", List.of("mail", "sms"));
    String id = jobs.submit(http, "{\"type\":\"report\"}");

    JsonNode d = diagnose(http, id);

    assertThat(codes(d)).containsExactly("NO_WORKER_FOR_TYPE");
    assertThat(d.get("reasons").get(0).get("type").asText()).isEqualTo("report");
    assertThat(d.get("reasons").get(0).get("namespace").asText()).isEqualTo("diag-type");
  }

  @Test
  void aWorkerThatDoesNotSayItsTypesIsTakenToServeAny() {
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "diag-old-worker", "h", 1, List.of("diag-untyped"), 4, Duration.ofSeconds(5)));
    HttpSupport http = FIXTURE.http().namespace("diag-untyped");
    String id = jobs.submit(http, "{\"type\":\"report\"}");

    assertThat(codes(diagnose(http, id))).containsExactly("READY");
  }

  @Test
  void aDeactivatedNamespace() {
    HttpSupport http = served("diag-inactive", List.of("noop"));
    String id = jobs.submit(http, "{\"type\":\"noop\"}");
    Reply off = FIXTURE.http().post("/api/v1/namespaces/diag-inactive/deactivate", "");
    assertThat(off.status()).as(off.raw().body()).isEqualTo(200);

    JsonNode d = diagnose(http, id);

    assertThat(codes(d)).containsExactly("NAMESPACE_INACTIVE");
    assertThat(d.get("reasons").get(0).get("namespace").asText()).isEqualTo("diag-inactive");
  }

  @Test
  void aDueJobWithAWorkerIsReady() {
    HttpSupport http = served("diag-ready", List.of("noop"));
    String id = jobs.submit(http, "{\"type\":\"noop\"}");

    JsonNode d = diagnose(http, id);

    assertThat(codes(d)).containsExactly("READY");
    assertThat(d.get("reasons").get(0).get("attempt").asInt()).isEqualTo(1);
  }

  @Test
  void runningAndFinalJobsSayWhatTheyDoOrHowTheyEnded() {
    HttpSupport http = FIXTURE.http();
    String running = jobs.submit(http, "{\"type\":\"noop\"}");
    jobs.claim(running);
    String failed = jobs.submit(http, "{\"type\":\"noop\",\"maxAttempts\":1}");
    jobs.fail(failed);

    JsonNode r = diagnose(http, running);
    assertThat(codes(r)).containsExactly("RUNNING");
    assertThat(r.get("reasons").get(0).get("workerId").asText()).isEqualTo("w-1");
    JsonNode f = diagnose(http, failed);
    assertThat(f.get("status").asText()).isEqualTo("FAILED");
    assertThat(codes(f)).containsExactly("FINAL");
    assertThat(f.get("reasons").get(0).get("error").asText()).isEqualTo("boom");
    assertThat(f.get("reasons").get(0).get("retryable").asBoolean()).isTrue();
  }

  @Test
  void aJobOfAnotherNamespaceIs404() {
    String id = jobs.submit("{\"type\":\"noop\"}");
    Reply reply = FIXTURE.http().namespace("diag-other").get("/api/v1/jobs/" + id + "/diagnosis");
    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(FIXTURE.http().get("/api/v1/jobs/x/diagnosis").status()).isEqualTo(404);
  }

  @Test
  void holdChecksAddTheirReasonsForAPendingJob() {
    HttpSupport http = served("diag-hold", List.of("noop"));
    String id = jobs.submit(http, "{\"type\":\"noop\"}");
    Diagnoser diagnoser =
        new Diagnoser(
            FIXTURE.stores.queries(),
            FIXTURE.stores.workers(),
            FIXTURE.stores.namespaces(),
            List.of(job -> List.of(new Reason("QUEUE_PAUSED", "paused").with("queue", "q"))),
            FIXTURE.clock);

    Diagnosis d = diagnoser.diagnose(jobs.find("diag-hold", id));

    assertThat(d.reasons()).extracting(Reason::code).containsExactly("QUEUE_PAUSED");
    assertThat(d.reasons().get(0).data()).containsEntry("queue", "q");
  }

  /** The namespace, served by a live worker with handlers for {@code types}. */
  private static HttpSupport served(String namespace, List<String> types) {
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-" + namespace + "-" + UUID.randomUUID(),
                "h",
                1,
                List.of(namespace),
                4,
                Duration.ofHours(1),
                types));
    return FIXTURE.http().namespace(namespace);
  }

  private static JsonNode diagnose(HttpSupport http, String id) {
    Reply reply = http.get("/api/v1/jobs/" + id + "/diagnosis");
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    return reply.json();
  }

  private static List<String> codes(JsonNode diagnosis) {
    List<String> codes = new ArrayList<>();
    diagnosis.get("reasons").forEach(r -> codes.add(r.get("code").asText()));
    return codes;
  }
}
