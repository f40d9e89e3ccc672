package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Job;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code callback.headers} are write-only: whatever reads a job or a schedule (the submit's own
 * answer, an idempotent repeat, a get, a list, a cancel, a batch, a workflow, a schedule and its
 * jobs) shows each header's name with {@code "(hidden)"}, never its value, while the stored job
 * keeps the value for the worker to send.
 */
class CallbackHeadersIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final String TOKEN = "Bearer s3cr3t-7d1e";
  private static final String TENANT = "tenant-42-secret";
  private static final String CALLBACK =
      """
      {"url":"https://hooks.example/done",
       "headers":{"Authorization":"%s","X-Tenant":"%s"}}"""
          .formatted(TOKEN, TENANT);

  private final List<Reply> reads = new ArrayList<>();

  private HttpSupport http() {
    return FIXTURE.http().namespace("cb-hidden");
  }

  private Reply read(Reply reply) {
    assertThat(reply.status()).as(reply.raw().body()).isBetween(200, 201);
    reads.add(reply);
    return reply;
  }

  /** The callback as shown: its URL, each header's name, no value. */
  private static void assertHidden(JsonNode callback) {
    assertThat(callback.get("url").asText()).isEqualTo("https://hooks.example/done");
    JsonNode headers = callback.get("headers");
    assertThat(headers.size()).isEqualTo(2);
    assertThat(headers.get("Authorization").asText()).isEqualTo(CallbackView.HIDDEN);
    assertThat(headers.get("X-Tenant").asText()).isEqualTo(CallbackView.HIDDEN);
  }

  private void assertNoReadShowsAValue() {
    assertThat(reads).isNotEmpty();
    for (Reply reply : reads) {
      assertThat(reply.raw().body())
          .as(reply.raw().request().uri().toString())
          .doesNotContain("s3cr3t")
          .doesNotContain(TENANT);
    }
  }

  private static JsonNode stored(String id) {
    Job job = FIXTURE.stack.queries.find("cb-hidden", UUID.fromString(id)).orElseThrow();
    return job.callback();
  }

  @Test
  void everyReadOfAJobShowsHeaderNamesOnly() {
    String body =
        """
        {"type":"http","idempotencyKey":"cb-1","runAt":"2099-01-01T00:00:00Z","callback":%s}"""
            .formatted(CALLBACK);
    Reply submitted = read(http().post("/api/v1/jobs", body));
    String id = submitted.json().get("id").asText();
    assertHidden(submitted.json().get("callback"));

    Reply repeated = read(http().post("/api/v1/jobs", body));
    assertThat(repeated.status()).isEqualTo(200);
    assertThat(repeated.json().get("id").asText()).isEqualTo(id);
    assertHidden(repeated.json().get("callback"));

    // Through Jersey rather than the submit fast path (an Accept the fast path hands on).
    Reply viaJersey =
        read(
            http()
                .send(
                    http()
                        .request("/api/v1/jobs")
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json;q=0.9")
                        .POST(HttpRequest.BodyPublishers.ofString(body))));
    assertHidden(viaJersey.json().get("callback"));

    assertHidden(read(http().get("/api/v1/jobs/" + id)).json().get("callback"));
    JsonNode page = read(http().get("/api/v1/jobs?type=http")).json();
    assertThat(page.get("items")).hasSize(1);
    assertHidden(page.get("items").get(0).get("callback"));
    read(http().get("/api/v1/jobs/" + id + "/executions"));

    Reply batch =
        read(
            http()
                .post(
                    "/api/v1/jobs/batch",
                    "{\"jobs\":[{\"type\":\"http\",\"callback\":" + CALLBACK + "}]}"));
    assertHidden(batch.json().get("items").get(0).get("callback"));

    assertHidden(read(http().post("/api/v1/jobs/" + id + "/cancel", "")).json().get("callback"));

    assertNoReadShowsAValue();
    // The worker still gets the values.
    assertThat(stored(id).get("headers").get("Authorization").asText()).isEqualTo(TOKEN);
    assertThat(stored(id).get("headers").get("X-Tenant").asText()).isEqualTo(TENANT);
  }

  @Test
  void aWorkflowStepsCallbackHeadersAreNotShownEither() {
    Reply workflow =
        read(
            http()
                .post(
                    "/api/v1/workflows",
                    """
                    {"jobs":[{"ref":"notify","type":"http","callback":%s}]}"""
                        .formatted(CALLBACK)));
    String workflowId = workflow.json().get("id").asText();
    String jobId = workflow.json().get("jobs").get(0).get("id").asText();

    read(http().get("/api/v1/workflows/" + workflowId));
    assertHidden(read(http().get("/api/v1/jobs/" + jobId)).json().get("callback"));

    assertNoReadShowsAValue();
    assertThat(stored(jobId).get("headers").get("Authorization").asText()).isEqualTo(TOKEN);
  }

  @Test
  void aSchedulesJobTemplateAndItsJobsShowHeaderNamesOnly() {
    String definition =
        """
        {"name":"%s","every":"PT1H","type":"http","callback":%s}""";
    Reply created =
        read(http().post("/api/v1/schedules", definition.formatted("hourly-hook", CALLBACK)));
    String id = created.json().get("id").asText();
    assertHidden(created.json().get("callback"));

    assertHidden(read(http().get("/api/v1/schedules/" + id)).json().get("callback"));
    JsonNode schedules = read(http().get("/api/v1/schedules")).json().get("items");
    assertThat(schedules).isNotEmpty();
    schedules.forEach(s -> assertHidden(s.get("callback")));
    Reply replaced =
        read(
            http()
                .send(
                    http()
                        .request("/api/v1/schedules/" + id)
                        .header("Content-Type", "application/json")
                        .PUT(
                            HttpRequest.BodyPublishers.ofString(
                                definition.formatted("hourly-hook", CALLBACK)))));
    assertHidden(replaced.json().get("callback"));
    Reply triggered = read(http().post("/api/v1/schedules/" + id + "/trigger", ""));
    String jobId = triggered.json().get("id").asText();
    assertHidden(triggered.json().get("callback"));
    JsonNode jobs = read(http().get("/api/v1/schedules/" + id + "/jobs")).json().get("items");
    assertThat(jobs).isNotEmpty();
    jobs.forEach(j -> assertHidden(j.get("callback")));
    assertHidden(read(http().get("/api/v1/jobs/" + jobId)).json().get("callback"));
    assertHidden(
        read(http().post("/api/v1/schedules/" + id + "/pause", "")).json().get("callback"));

    assertNoReadShowsAValue();
    assertThat(stored(jobId).get("headers").get("X-Tenant").asText()).isEqualTo(TENANT);
  }

  @Test
  void aCallbackWithoutHeadersReadsAsItWasGiven() {
    Reply submitted =
        read(
            http()
                .post(
                    "/api/v1/jobs",
                    "{\"type\":\"http\",\"callback\":{\"url\":\"https://hooks.example/x\"}}"));

    JsonNode callback = submitted.json().get("callback");
    assertThat(callback.get("url").asText()).isEqualTo("https://hooks.example/x");
    assertThat(callback.get("headers").isObject()).isTrue();
    assertThat(callback.get("headers").isEmpty()).isTrue();
  }
}
