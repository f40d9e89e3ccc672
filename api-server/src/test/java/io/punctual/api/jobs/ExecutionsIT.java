package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.store.JobQueries;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobTransitions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ExecutionsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void listsEveryAttemptWithItsOutcome() {
    String id =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"flaky\"}").json().get("id").asText();
    UUID jobId = UUID.fromString(id);
    JobSubmissions submissions = FIXTURE.stack.submissions;
    JobTransitions transitions = FIXTURE.stack.transitions;
    JobQueries queries = FIXTURE.stack.queries;
    Instant now = FIXTURE.clock.instant();

    transitions.claim(List.of(jobId), "worker-a");
    transitions.finish(
        List.of(
            new Completion(
                jobId,
                1,
                JobState.PENDING,
                now,
                ExecutionStatus.FAILED,
                now.plusMillis(40),
                40,
                "boom",
                "stack",
                null,
                List.of())));
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    transitions.claim(List.of(jobId), "worker-b");
    Reply running = FIXTURE.http().get("/api/v1/jobs/" + id + "/executions");
    transitions.finish(
        List.of(
            new Completion(
                jobId,
                2,
                JobState.SUCCEEDED,
                null,
                ExecutionStatus.SUCCEEDED,
                FIXTURE.clock.instant().plusMillis(5),
                5,
                null,
                null,
                JsonNodeFactory.instance.objectNode().put("ok", true),
                List.of())));

    Reply reply = FIXTURE.http().get("/api/v1/jobs/" + id + "/executions");

    assertThat(running.json().get("items")).hasSize(2);
    assertThat(running.json().get("items").get(1).get("status").asText()).isEqualTo("RUNNING");
    assertThat(running.json().get("items").get(1).get("finishedAt").isNull()).isTrue();
    assertThat(reply.status()).isEqualTo(200);
    JsonNode items = reply.json().get("items");
    assertThat(items).hasSize(2);
    JsonNode first = items.get(0);
    assertThat(first.get("attempt").asInt()).isEqualTo(1);
    assertThat(first.get("status").asText()).isEqualTo("FAILED");
    assertThat(first.get("workerId").asText()).isEqualTo("worker-a");
    assertThat(first.get("startedAt").asText()).isEqualTo(now.toString());
    assertThat(first.get("finishedAt").asText()).isEqualTo(now.plusMillis(40).toString());
    assertThat(first.get("durationMs").asLong()).isEqualTo(40);
    assertThat(first.get("error").asText()).isEqualTo("boom");
    assertThat(first.has("stackTrace")).isFalse();
    JsonNode second = items.get(1);
    assertThat(second.get("attempt").asInt()).isEqualTo(2);
    assertThat(second.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(second.get("workerId").asText()).isEqualTo("worker-b");
    assertThat(second.get("error").isNull()).isTrue();

    JsonNode job = FIXTURE.http().get("/api/v1/jobs/" + id).json();
    assertThat(job.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(job.get("attempts").asInt()).isEqualTo(2);
    assertThat(job.get("result").get("ok").asBoolean()).isTrue();
    assertThat(job.get("workerId").asText()).isEqualTo("worker-b");
  }

  @Test
  void aJobNeverRunHasNoExecutions() {
    String id =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"idle\"}").json().get("id").asText();

    Reply reply = FIXTURE.http().get("/api/v1/jobs/" + id + "/executions");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("items")).isEmpty();
  }

  @Test
  void executionsOfAnUnknownJobAre404() {
    Reply reply =
        FIXTURE.http().get("/api/v1/jobs/019a0000-0000-7000-8000-000000000000/executions");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.contentType()).startsWith("application/problem+json");
  }
}
