package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.JobState;
import io.punctual.queue.CancelNotice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class BulkActionsIT {
  static final ApiFixture FIXTURE = start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  final Jobs jobs = new Jobs(FIXTURE);

  /** Small batches, so that an action of a few jobs takes several. */
  private static ApiFixture start() {
    var settings = ApiFixture.testSettings();
    settings.bulkBatchSize = 2;
    settings.bulkMaxJobs = 50;
    return ApiFixture.start(settings);
  }

  @Test
  void aDryRunCountsWhatTheActionThenDoesBatchByBatch() {
    HttpSupport http = FIXTURE.http().namespace("bulk-retry");
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String id = jobs.submit(http, "{\"type\":\"report\",\"maxAttempts\":1}");
      jobs.fail(id);
      failed.add(id);
    }
    jobs.submit(http, "{\"type\":\"report\"}"); // pending: not matched
    String otherType = jobs.submit(http, "{\"type\":\"mail\",\"maxAttempts\":1}");
    jobs.fail(otherType);
    String filter = "{\"status\":\"FAILED\",\"type\":\"report\"}";

    Reply dry = http.post("/api/v1/jobs/bulk", body("retry", filter, true));
    assertThat(dry.status()).isEqualTo(200);
    assertThat(dry.json().get("count").asInt()).isEqualTo(5);

    Reply started = http.post("/api/v1/jobs/bulk", body("retry", filter, false));
    assertThat(started.status()).isEqualTo(202);
    JsonNode accepted = started.json();
    assertThat(accepted.get("action").asText()).isEqualTo("retry");
    assertThat(accepted.get("status").asText()).isEqualTo("running");
    assertThat(accepted.get("count").asInt()).isEqualTo(5);
    assertThat(accepted.get("done").asInt()).isZero();
    assertThat(accepted.get("failed").asInt()).isZero();
    assertThat(started.header("Location").orElseThrow())
        .endsWith("/api/v1/jobs/bulk/" + accepted.get("id").asText());

    JsonNode end = awaitEnd(http, accepted.get("id").asText());
    assertThat(end.get("status").asText()).isEqualTo("done");
    assertThat(end.get("done").asInt()).isEqualTo(5);
    assertThat(end.get("failed").asInt()).isZero();
    for (String id : failed) {
      assertThat(jobs.find("bulk-retry", id).status()).isEqualTo(JobState.PENDING);
    }
    assertThat(jobs.find("bulk-retry", otherType).status()).isEqualTo(JobState.FAILED);
  }

  @Test
  void aBulkCancelCountsTheJobsThatChangedMeanwhileAsFailed() {
    HttpSupport http = FIXTURE.http().namespace("bulk-cancel");
    List<String> pending = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pending.add(jobs.submit(http, "{\"type\":\"noop\",\"tags\":[\"nightly\"]}"));
    }
    Reply started = http.post("/api/v1/jobs/bulk", body("cancel", "{\"tag\":\"nightly\"}", false));
    assertThat(started.status()).isEqualTo(202);
    assertThat(started.json().get("count").asInt()).isEqualTo(4);

    JsonNode end = awaitEnd(http, started.json().get("id").asText());

    assertThat(end.get("done").asInt() + end.get("failed").asInt()).isEqualTo(4);
    for (String id : pending) {
      assertThat(jobs.find("bulk-cancel", id).status()).isEqualTo(JobState.CANCELLED);
    }
    // Again: every job is final now, so each is counted as failed.
    Reply again = http.post("/api/v1/jobs/bulk", body("cancel", "{\"tag\":\"nightly\"}", false));
    JsonNode second = awaitEnd(http, again.json().get("id").asText());
    assertThat(second.get("count").asInt()).isEqualTo(4);
    assertThat(second.get("done").asInt()).isZero();
    assertThat(second.get("failed").asInt()).isEqualTo(4);
  }

  @Test
  void aBulkCancelOfPendingJobsSendsOneNoticeMessagePerBatch() throws Exception {
    // A worker may hold a PENDING job's next attempt with its claim not written yet
    // (worker.claimWriteAfter): each cancelled job gets a notice for that attempt, a batch's in one
    // message.
    HttpSupport http = FIXTURE.http().namespace("bulk-notice");
    List<String> pending = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pending.add(jobs.submit(http, "{\"type\":\"noop\",\"tags\":[\"notice\"]}"));
    }
    List<List<CancelNotice>> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (var connection = FIXTURE.stack.redisClient.connectPubSub()) {
      connection.addListener(
          new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              messages.add(CancelNotice.decode(message));
            }
          });
      connection.sync().subscribe(FIXTURE.stack.keys.cancelChannel());

      Reply started = http.post("/api/v1/jobs/bulk", body("cancel", "{\"tag\":\"notice\"}", false));
      JsonNode end = awaitEnd(http, started.json().get("id").asText());
      assertThat(end.get("done").asInt()).isEqualTo(4);

      await().atMost(Duration.ofSeconds(3)).until(() -> messages.size() >= 2);
      assertThat(messages).hasSize(2).allSatisfy(m -> assertThat(m).hasSize(2));
      assertThat(messages.stream().flatMap(List::stream))
          .extracting(n -> n.jobId().toString())
          .containsExactlyInAnyOrderElementsOf(pending);
      assertThat(messages.stream().flatMap(List::stream))
          .allSatisfy(
              n -> assertThat(n.attempt()).as("the attempt a worker would hold").isEqualTo(1));
      for (io.punctual.model.Priority p : io.punctual.model.Priority.values()) {
        assertThat(FIXTURE.stack.queue.size("bulk-notice", p)).as("taken out of Redis").isZero();
      }
    }
  }

  @Test
  void anotherNamespaceNeitherCountsNorSeesTheAction() {
    HttpSupport mine = FIXTURE.http().namespace("bulk-mine");
    String id = jobs.submit(mine, "{\"type\":\"noop\",\"maxAttempts\":1}");
    jobs.fail(id);
    HttpSupport other = FIXTURE.http().namespace("bulk-theirs");

    Reply dry = other.post("/api/v1/jobs/bulk", body("retry", "{\"status\":\"FAILED\"}", true));
    assertThat(dry.json().get("count").asInt()).isZero();

    Reply started = mine.post("/api/v1/jobs/bulk", body("retry", "{\"status\":\"FAILED\"}", false));
    String bulkId = started.json().get("id").asText();
    assertThat(other.get("/api/v1/jobs/bulk/" + bulkId).status()).isEqualTo(404);
    assertThat(other.get("/api/v1/jobs/bulk/" + UUID.randomUUID()).status()).isEqualTo(404);
    assertThat(other.get("/api/v1/jobs/bulk/nope").status()).isEqualTo(404);
    awaitEnd(mine, bulkId);
  }

  @Test
  void theActionRecordsTheKeyAndIsAudited() {
    HttpSupport http = FIXTURE.http().namespace("bulk-audit");
    Reply started = http.post("/api/v1/jobs/bulk", body("cancel", "{\"type\":\"none\"}", false));
    String id = started.json().get("id").asText();
    awaitEnd(http, id);

    UUID keyId =
        FIXTURE
            .stack
            .database
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT key_id FROM bulk_actions WHERE id = :id")
                        .bind("id", UUID.fromString(id))
                        .mapTo(UUID.class)
                        .one());
    assertThat(keyId).isNotNull();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Reply audit = FIXTURE.http().get("/api/v1/audit?limit=20&namespace=bulk-audit");
              List<JsonNode> mine = new ArrayList<>();
              audit
                  .json()
                  .get("items")
                  .forEach(
                      e -> {
                        if (id.equals(e.path("target").asText())) {
                          mine.add(e);
                        }
                      });
              assertThat(mine).as(audit.raw().body()).hasSize(1);
              assertThat(mine.get(0).get("action").asText()).isEqualTo("POST /api/v1/jobs/bulk");
              assertThat(mine.get(0).get("keyId").asText()).isEqualTo(keyId.toString());
            });
  }

  @Test
  void aFilterMatchingTooManyJobsIsRefusedBeforeAnythingChanges() {
    HttpSupport http = FIXTURE.http().namespace("bulk-many");
    String batch = "{\"jobs\":[" + "{\"type\":\"noop\"},".repeat(4) + "{\"type\":\"noop\"}]}";
    for (int i = 0; i < 11; i++) {
      assertThat(http.post("/api/v1/jobs/batch", batch).status()).isEqualTo(201);
    }
    Reply reply = http.post("/api/v1/jobs/bulk", body("cancel", "{}", false));
    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("filter");
    Reply pending =
        http.post("/api/v1/jobs/bulk", body("cancel", "{\"status\":\"PENDING\"}", true));
    assertThat(pending.json().get("count").asInt()).isEqualTo(55);
  }

  @Test
  void invalidBodiesAre422NamingTheField() {
    String[][] cases = {
      {"{\"filter\":{}}", "action"},
      {"{\"action\":\"delete\",\"filter\":{}}", "action"},
      {"{\"action\":\"retry\"}", "filter"},
      {"{\"action\":\"retry\",\"filter\":[]}", "filter"},
      {"{\"action\":\"retry\",\"filter\":{},\"dryRun\":\"yes\"}", "dryRun"},
      {"{\"action\":\"retry\",\"filter\":{\"colour\":\"red\"}}", "filter.colour"},
      {"{\"action\":\"retry\",\"filter\":{\"status\":\"DONE\"}}", "filter.status"},
      {"{\"action\":\"retry\",\"filter\":{\"from\":\"yesterday\"}}", "filter.from"},
      {"{\"action\":\"retry\",\"filter\":{\"payload\":\"[1\"}}", "filter.payload"},
      // without the payload index, a payload filter needs a range of at most a day
      {"{\"action\":\"retry\",\"filter\":{\"payload\":{\"a\":1}}}", "filter.from"},
      {
        "{\"action\":\"retry\",\"filter\":{\"payload\":{\"a\":1},"
            + "\"from\":\"2030-01-01T00:00:00Z\",\"to\":\"2030-01-03T00:00:00Z\"},"
            + "\"dryRun\":true}",
        "filter.to"
      },
      {"{\"action\":\"retry\",\"filter\":{\"type\":3}}", "filter.type"},
      {"{\"action\":\"retry\",\"filter\":{},\"extra\":1}", "extra"},
    };
    for (String[] c : cases) {
      Reply reply = FIXTURE.http().post("/api/v1/jobs/bulk", c[0]);
      assertThat(reply.status()).as(c[0]).isEqualTo(422);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("field").asText()).as(c[0]).isEqualTo(c[1]);
    }
  }

  @Test
  void aPayloadFilterMayBeAnObject() {
    HttpSupport http = FIXTURE.http().namespace("bulk-payload");
    jobs.submit(http, "{\"type\":\"noop\",\"payload\":{\"customerId\":7}}");
    jobs.submit(http, "{\"type\":\"noop\",\"payload\":{\"customerId\":8}}");
    Instant now = FIXTURE.clock.instant();
    String filter =
        "{\"payload\":{\"customerId\":7},\"from\":\""
            + now.minus(Duration.ofHours(1))
            + "\",\"to\":\""
            + now.plus(Duration.ofHours(1))
            + "\"}";
    Reply dry = http.post("/api/v1/jobs/bulk", body("cancel", filter, true));
    assertThat(dry.json().get("count").asInt()).isEqualTo(1);
  }

  private static String body(String action, String filter, boolean dryRun) {
    return "{\"action\":\"" + action + "\",\"filter\":" + filter + ",\"dryRun\":" + dryRun + "}";
  }

  /** Reads the action until it is no longer running (it runs in the API's background). */
  private static JsonNode awaitEnd(HttpSupport http, String id) {
    JsonNode[] end = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Reply reply = http.get("/api/v1/jobs/bulk/" + id);
              assertThat(reply.status()).isEqualTo(200);
              assertThat(reply.json().get("status").asText()).isNotEqualTo("running");
              end[0] = reply.json();
            });
    return end[0];
  }
}
