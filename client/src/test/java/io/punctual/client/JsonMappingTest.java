package io.punctual.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonMappingTest {

  @Test
  void writesARequestInTheApiShapeWithoutUnsetFields() throws Exception {
    JobRequest request =
        JobRequest.builder("email.send")
            .payload(Map.of("to", "a@b.c"))
            .runAt(Instant.parse("2030-01-02T03:04:05Z"))
            .priority(JobPriority.HIGH)
            .maxAttempts(5)
            .backoff(BackoffPolicy.fixed(Duration.ofSeconds(30)))
            .timeout(Duration.ofMinutes(2))
            .idempotencyKey("k1")
            .tags("a", "b")
            .callback(new Callback(URI.create("https://hooks.example/x"), Map.of("X-A", "1")))
            .build();

    JsonNode json = ClientJson.MAPPER.valueToTree(request);

    assertThat(json.get("type").asText()).isEqualTo("email.send");
    assertThat(json.get("payload").get("to").asText()).isEqualTo("a@b.c");
    assertThat(json.get("runAt").asText()).isEqualTo("2030-01-02T03:04:05Z");
    assertThat(json.has("delay")).isFalse();
    assertThat(json.get("priority").asText()).isEqualTo("high");
    assertThat(json.get("maxAttempts").asInt()).isEqualTo(5);
    assertThat(json.get("backoff").get("strategy").asText()).isEqualTo("fixed");
    assertThat(json.get("backoff").get("delay").asText()).isEqualTo("PT30S");
    assertThat(json.get("timeout").asText()).isEqualTo("PT2M");
    assertThat(json.get("idempotencyKey").asText()).isEqualTo("k1");
    assertThat(json.get("tags")).hasSize(2);
    assertThat(json.get("callback").get("url").asText()).isEqualTo("https://hooks.example/x");
    assertThat(json.get("callback").get("headers").get("X-A").asText()).isEqualTo("1");
  }

  @Test
  void minimalRequestHasOnlyTheType() {
    JsonNode json =
        ClientJson.MAPPER.valueToTree(
            JobRequest.builder("noop").delay(Duration.ofSeconds(5)).build());

    assertThat(json.size()).isEqualTo(2);
    assertThat(json.get("delay").asText()).isEqualTo("PT5S");
  }

  @Test
  void backoffHelpersProduceTheThreeStrategies() {
    JsonNode exp =
        ClientJson.MAPPER.valueToTree(
            BackoffPolicy.exponential(Duration.ofSeconds(1), 2.0, Duration.ofHours(1), 0.2));
    JsonNode intervals =
        ClientJson.MAPPER.valueToTree(
            BackoffPolicy.intervals(Duration.ofMinutes(1), Duration.ofMinutes(5)));

    assertThat(exp.get("strategy").asText()).isEqualTo("exponential");
    assertThat(exp.get("initialDelay").asText()).isEqualTo("PT1S");
    assertThat(exp.get("factor").asDouble()).isEqualTo(2.0);
    assertThat(exp.get("maxDelay").asText()).isEqualTo("PT1H");
    assertThat(exp.get("jitter").asDouble()).isEqualTo(0.2);
    assertThat(intervals.get("intervals").get(1).asText()).isEqualTo("PT5M");
  }

  @Test
  void readsAJobView() throws Exception {
    String json =
        """
        {"id":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","namespace":"default","type":"noop",
         "status":"RUNNING","priority":"critical","payload":{"n":1},
         "runAt":"2030-01-02T03:04:05.123Z","attempts":1,"maxAttempts":3,
         "backoff":{"strategy":"intervals","intervals":["PT1M"]},"timeout":"PT30S",
         "idempotencyKey":null,"tags":["x"],
         "callback":{"url":"http://h/cb","headers":{}},"result":null,"lastError":null,
         "workerId":"w1","startedAt":"2030-01-02T03:04:06Z","finishedAt":null,
         "createdAt":"2030-01-01T00:00:00Z","updatedAt":"2030-01-02T03:04:06Z",
         "somethingNew":true}
        """;

    JobView job = ClientJson.MAPPER.readValue(json, JobView.class);

    assertThat(job.id()).isEqualTo("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
    assertThat(job.status().isFinal()).isFalse();
    assertThat(job.priority()).isEqualTo(JobPriority.CRITICAL);
    assertThat(job.payload().get("n").asInt()).isEqualTo(1);
    assertThat(job.runAt()).isEqualTo(Instant.parse("2030-01-02T03:04:05.123Z"));
    assertThat(job.attempts()).isEqualTo(1);
    assertThat(job.backoff().strategy()).isEqualTo("intervals");
    assertThat(job.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.tags()).containsExactly("x");
    assertThat(job.callback().url()).isEqualTo(URI.create("http://h/cb"));
    assertThat(job.finishedAt()).isNull();
  }

  @Test
  void readsWhatAJobWaitsFor() throws Exception {
    String json =
        """
        {"id":"j","status":"BLOCKED","parentId":"p","runCondition":"on_failure",
         "dependsOn":[{"id":"a","required":true,"runCondition":"on_success"},
                      {"id":"b","required":false,"runCondition":"always"}]}
        """;

    JobView job = ClientJson.MAPPER.readValue(json, JobView.class);

    assertThat(job.runCondition()).isEqualTo(RunCondition.ON_FAILURE);
    assertThat(job.dependsOn())
        .containsExactly(
            new DependencyView("a", true, RunCondition.ON_SUCCESS),
            new DependencyView("b", false, RunCondition.ALWAYS));
    assertThat(ClientJson.MAPPER.readValue("{\"id\":\"j\"}", JobView.class).dependsOn())
        .as("left out of list pages")
        .isNull();
  }

  @Test
  void readsAPageAndExecutions() throws Exception {
    JobPage page = ClientJson.MAPPER.readValue("{\"items\":[],\"nextCursor\":null}", JobPage.class);
    PunctualClient.Items<ExecutionView> executions =
        ClientJson.MAPPER.readValue(
            """
            {"items":[{"attempt":1,"status":"FAILED","workerId":"w","startedAt":"2030-01-01T00:00:00Z",
              "finishedAt":"2030-01-01T00:00:01Z","durationMs":1000,"error":"boom"}]}
            """,
            ClientJson.MAPPER
                .getTypeFactory()
                .constructParametricType(PunctualClient.Items.class, ExecutionView.class));

    assertThat(page.items()).isEmpty();
    assertThat(page.hasMore()).isFalse();
    assertThat(executions.items())
        .containsExactly(
            new ExecutionView(
                1,
                "FAILED",
                "w",
                Instant.parse("2030-01-01T00:00:00Z"),
                Instant.parse("2030-01-01T00:00:01Z"),
                1000L,
                "boom"));
  }

  @Test
  void turnsAProblemIntoAnException() {
    byte[] body =
        """
        {"type":"https://punctual.dev/problems/invalid-request","title":"Invalid request",
         "status":422,"detail":"1 invalid field","instance":"/api/v1/jobs","field":"priority",
         "errors":[{"field":"priority","message":"must be one of critical, high, normal, low"}]}
        """
            .getBytes();

    PunctualApiException e = ResponseErrors.toException(422, body);

    assertThat(e.status()).isEqualTo(422);
    assertThat(e.type()).endsWith("/invalid-request");
    assertThat(e.field()).isEqualTo("priority");
    assertThat(e.errors())
        .containsExactly(
            new PunctualApiException.FieldError(
                "priority", "must be one of critical, high, normal, low"));
    assertThat(e.getMessage()).contains("422").contains("priority");
  }

  @Test
  void aNonJsonErrorBodyStillGivesTheStatus() {
    PunctualApiException e = ResponseErrors.toException(502, "<html>bad gateway</html>".getBytes());

    assertThat(e.status()).isEqualTo(502);
    assertThat(e.detail()).contains("bad gateway");
    assertThat(e.errors()).isEmpty();
  }

  @Test
  void listQueryEncodesParameters() {
    String qs =
        ListQuery.all()
            .status(JobStatus.PENDING)
            .type("a b")
            .from(Instant.parse("2030-01-01T00:00:00Z"))
            .limit(10)
            .cursor("c")
            .toQueryString();

    assertThat(qs)
        .isEqualTo("status=PENDING&type=a+b&from=2030-01-01T00%3A00%3A00Z&limit=10&cursor=c");
  }

  @Test
  void writesTheWaitingFieldsOfAWorkflowStep() {
    JobRequest step =
        JobRequest.builder("compile")
            .ref("c")
            .parent("a", RunCondition.ON_FAILURE)
            .dependsOn(Dependency.onStep("b").optional(), Dependency.on("01a2-id"))
            .build();

    JsonNode json = ClientJson.MAPPER.valueToTree(step);

    assertThat(json.get("ref").asText()).isEqualTo("c");
    assertThat(json.get("parent").asText()).isEqualTo("a");
    assertThat(json.get("runCondition").asText()).isEqualTo("on_failure");
    assertThat(json.get("dependsOn").get(0).get("ref").asText()).isEqualTo("b");
    assertThat(json.get("dependsOn").get(0).get("required").asBoolean()).isFalse();
    assertThat(json.get("dependsOn").get(1).has("ref")).isFalse();
    assertThat(json.get("dependsOn").get(1).get("id").asText()).isEqualTo("01a2-id");
    assertThat(json.has("parentId")).isFalse();
  }
}
