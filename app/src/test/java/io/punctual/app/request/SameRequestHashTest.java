package io.punctual.app.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.punctual.api.config.ApiSettings;
import io.punctual.client.BackoffPolicy;
import io.punctual.client.Dependency;
import io.punctual.client.JobPriority;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.common.json.Json;
import io.punctual.model.NewJob;
import io.punctual.requests.jobs.JobRequestParser;
import io.punctual.requests.jobs.WorkflowRequestParser;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A request submitted in a transaction ({@code PunctualJobs}) becomes the job the API makes of the
 * same request over REST: same defaults, same fields, and the same request hash, which idempotency
 * keys compare (so a request repeated over either path is one job). Both read it with the parser of
 * punctual-requests; this checks what the app writes is the body the Java client sends, and that
 * {@link JobDefaults#API} are the API's default settings.
 */
class SameRequestHashTest {
  /** The client's JSON setup (ClientJson): ISO-8601 times and durations, no nulls. */
  private static final ObjectMapper CLIENT =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .setDefaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS));

  private static final ObjectMapper API =
      Json.strictForRequests(Json.configure(new ObjectMapper()));

  private static final Instant NOW = Instant.parse("2026-11-29T09:00:00.123Z");

  record Payload(String customer, double amount, Instant due, List<Integer> lines) {}

  static Stream<JobRequest> requests() {
    return Stream.of(
        JobRequest.builder("invoice.send").idempotencyKey("k1").build(),
        JobRequest.builder("invoice.send")
            .payload(Map.of("order", 42, "total", 19.99, "note", "é ü ✓", "nested", Map.of()))
            .idempotencyKey("k2")
            .build(),
        JobRequest.builder("report.build")
            .payload(new Payload("acme", 12.5, NOW.plusSeconds(3600), List.of(1, 2, 3)))
            .runAt(Instant.parse("2026-12-01T06:00:00Z"))
            .priority(JobPriority.HIGH)
            .maxAttempts(7)
            .backoff(Map.of("factor", 3.0))
            .timeout(Duration.ofMinutes(5))
            .tags("a", "b")
            .idempotencyKey("k3")
            .build(),
        JobRequest.builder("x")
            .delay(Duration.ofSeconds(90))
            .backoff(BackoffPolicy.fixed(Duration.ofSeconds(30)))
            .idempotencyKey("k4")
            .build(),
        JobRequest.builder("x")
            .backoff(BackoffPolicy.intervals(Duration.ofSeconds(1), Duration.ofMinutes(2)))
            .priority(JobPriority.LOW)
            .idempotencyKey("k5")
            .build(),
        JobRequest.builder("x")
            .backoff(
                BackoffPolicy.exponential(Duration.ofMillis(500), 1.5, Duration.ofMinutes(10), 0))
            .idempotencyKey("k6")
            .build(),
        JobRequest.builder("no.key").payload(List.of(1, "two")).build());
  }

  @ParameterizedTest
  @MethodSource("requests")
  void aRequestInATransactionIsTheJobTheApiMakesOfIt(JobRequest request) throws Exception {
    // The bytes the client sends, read by a mapper set up as the API's (Dropwizard's, configured).
    JsonNode body = API.readTree(CLIENT.writeValueAsBytes(request));
    NewJob overRest =
        new JobRequestParser(new ApiSettings().submitLimits())
            .parseOne(body)
            .toNewJob("default", NOW);
    NewJob inTransaction =
        new JobRequestMapper(JobDefaults.API).one(request).toNewJob("default", NOW);

    assertThat(inTransaction.requestHash()).isEqualTo(overRest.requestHash());
    assertThat(inTransaction).usingRecursiveComparison().isEqualTo(overRest);
    if (request.idempotencyKey() != null) {
      assertThat(inTransaction.requestHash()).hasSize(64);
    }
  }

  @ParameterizedTest
  @MethodSource("requests")
  void anotherRequestUnderTheSameKeyHashesOtherwise(JobRequest request) {
    if (request.idempotencyKey() == null) {
      return;
    }
    JobRequest other =
        JobRequest.builder(request.type())
            .payload(Map.of("something", "else"))
            .idempotencyKey(request.idempotencyKey())
            .build();
    JobRequestMapper mapper = new JobRequestMapper(JobDefaults.API);
    assertThat(mapper.one(other).toNewJob("default", NOW).requestHash())
        .isNotEqualTo(mapper.one(request).toNewJob("default", NOW).requestHash());
  }

  @org.junit.jupiter.api.Test
  void whatTheApiRefusesIsRefusedNamingTheField() {
    JobRequestMapper mapper = new JobRequestMapper(JobDefaults.API);
    assertThatThrownBy(
            () ->
                mapper.batch(
                    List.of(
                        JobRequest.builder("x").build(),
                        JobRequest.builder("x").maxAttempts(101).build())))
        .isInstanceOf(InvalidJobRequestException.class)
        .hasMessage("jobs[1].maxAttempts: must be between 1 and 100")
        .extracting(e -> ((InvalidJobRequestException) e).field())
        .isEqualTo("jobs[1].maxAttempts");
    assertThatThrownBy(
            () ->
                mapper.one(JobRequest.builder("x").runAt(NOW).delay(Duration.ofSeconds(1)).build()))
        .hasMessageStartingWith("delay:");
    assertThatThrownBy(
            () -> mapper.one(JobRequest.builder("x").backoff(Map.of("strategy", "fixed")).build()))
        .hasMessageStartingWith("backoff");
    assertThatThrownBy(
            () -> mapper.one(JobRequest.builder("x").payload("a".repeat(300_000)).build()))
        .hasMessageStartingWith("payload:");
    assertThatThrownBy(() -> mapper.one(JobRequest.builder("x").parentId("0", null).build()))
        .hasMessage("parentId: must be the id of a job");
    assertThatThrownBy(
            () -> mapper.one(JobRequest.builder("x").payload(Map.of("bad", "nul\u0000")).build()))
        .hasMessageStartingWith("payload.bad:");
    assertThatThrownBy(
            () ->
                mapper.batch(
                    List.of(
                        JobRequest.builder("x").maxAttempts(0).build(),
                        JobRequest.builder("x").maxAttempts(0).build())))
        .hasMessage("jobs[0].maxAttempts: must be between 1 and 100 (and 1 more invalid field)");
    assertThatThrownBy(
            () ->
                mapper.workflow(
                    WorkflowRequest.of(
                        JobRequest.builder("a").ref("a").dependsOn(Dependency.onStep("b")).build(),
                        JobRequest.builder("b")
                            .ref("b")
                            .dependsOn(Dependency.onStep("a"))
                            .build())))
        .hasMessageContaining("wait for each other in a cycle");
  }

  @org.junit.jupiter.api.Test
  void aWorkflowInATransactionHashesAsOverRest() throws Exception {
    WorkflowRequest request =
        WorkflowRequest.of(
                JobRequest.builder("extract").ref("extract").build(),
                JobRequest.builder("load")
                    .ref("load")
                    .dependsOn(Dependency.onStep("extract"))
                    .payload(Map.of("table", "orders"))
                    .build())
            .withIdempotencyKey("etl-1");
    JsonNode body = API.readTree(CLIENT.writeValueAsBytes(request));
    var overRest = new WorkflowRequestParser(new ApiSettings().submitLimits()).parse(body);
    var inTransaction = new JobRequestMapper(JobDefaults.API).workflow(request);

    assertThat(inTransaction.requestHash()).isEqualTo(overRest.requestHash());
    assertThat(inTransaction.toSteps("default", NOW))
        .usingRecursiveComparison()
        .isEqualTo(overRest.toSteps("default", NOW));
  }
}
