package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Priority;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class BatchSubmitIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void batchStoresAllJobsAndAnswersInTheOrderGiven() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs/batch",
                """
                {"jobs":[{"type":"a","priority":"critical"},
                         {"type":"b","delay":"PT2H"},
                         {"type":"c","priority":"low","tags":["t"]}]}
                """);

    assertThat(reply.status()).isEqualTo(201);
    JsonNode items = reply.json().get("items");
    assertThat(items.findValuesAsText("type")).containsExactly("a", "b", "c");
    List<UUID> ids = new ArrayList<>();
    items.forEach(i -> ids.add(UUID.fromString(i.get("id").asText())));
    assertThat(FIXTURE.stack.queries.findMany(ids)).hasSize(3);
    assertThat(queued(Priority.CRITICAL)).contains(ids.get(0).toString());
    assertThat(queued(Priority.NORMAL)).doesNotContain(ids.get(1).toString());
    assertThat(queued(Priority.LOW)).contains(ids.get(2).toString());
  }

  @Test
  void oneInvalidItemRejectsTheWholeBatchNamingItsIndex() {
    int before = storedJobs();

    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs/batch",
                """
                {"jobs":[{"type":"ok-1"},{"type":"ok-2"},{"type":"ok-3"},
                         {"type":"bad","runAt":"yesterday"}]}
                """);

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs[3].runAt");
    assertThat(storedJobs()).isEqualTo(before);
  }

  @Test
  void anIdempotencyConflictInsideTheBatchRollsEverythingBack() {
    FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"x\",\"idempotencyKey\":\"batch-key\"}");
    int before = storedJobs();

    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs/batch",
                """
                {"jobs":[{"type":"fresh-1"},
                         {"type":"y","idempotencyKey":"batch-key"}]}
                """);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs[1].idempotencyKey");
    assertThat(storedJobs()).isEqualTo(before);
  }

  @Test
  void aBatchOverTheMaximumIs413NamingJobs() {
    String six =
        "{\"jobs\":["
            + String.join(",", java.util.Collections.nCopies(6, "{\"type\":\"a\"}"))
            + "]}";

    Reply reply = FIXTURE.http().post("/api/v1/jobs/batch", six);

    assertThat(reply.status()).isEqualTo(413);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs");
  }

  @Test
  void anEmptyOrMissingJobsArrayIs422() {
    Reply empty = FIXTURE.http().post("/api/v1/jobs/batch", "{\"jobs\":[]}");
    Reply missing = FIXTURE.http().post("/api/v1/jobs/batch", "{}");

    assertThat(empty.status()).isEqualTo(422);
    assertThat(empty.json().get("field").asText()).isEqualTo("jobs");
    assertThat(missing.status()).isEqualTo(422);
    assertThat(missing.json().get("field").asText()).isEqualTo("jobs");
  }

  @Test
  void anOversizedPayloadInABatchNamesItsItem() {
    String big = "x".repeat(1100);
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs/batch",
                "{\"jobs\":[{\"type\":\"a\"},{\"type\":\"b\",\"payload\":\"" + big + "\"}]}");

    assertThat(reply.status()).isEqualTo(413);
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs[1].payload");
  }

  private static List<String> queued(Priority priority) {
    return FIXTURE.stack.redis.sync().zrange(FIXTURE.stack.keys.queue("default", priority), 0, -1);
  }

  private static int storedJobs() {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Integer.class).one());
  }
}
