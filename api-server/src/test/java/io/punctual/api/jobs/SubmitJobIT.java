package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SubmitJobIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void submitStoresTheJobAndQueuesItInItsPriorityQueue() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                """
                {"type":"email.send","payload":{"to":"a@b.c"},"priority":"high",
                 "maxAttempts":5,"tags":["mail","x"],"timeout":"PT30S",
                 "backoff":{"strategy":"fixed","delay":"PT10S"},
                 "callback":{"url":"https://hooks.example/done","headers":{"X-Token":"t"}}}
                """);

    assertThat(reply.status()).isEqualTo(201);
    String id = reply.json().get("id").asText();
    assertThat(reply.header("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("/api/v1/jobs/" + id));
    assertThat(reply.contentType()).startsWith("application/json");
    JsonNode job = reply.json();
    assertThat(job.get("status").asText()).isEqualTo("PENDING");
    assertThat(job.get("priority").asText()).isEqualTo("high");
    assertThat(job.get("namespace").asText()).isEqualTo("default");
    assertThat(job.get("attempts").asInt()).isZero();
    assertThat(job.get("maxAttempts").asInt()).isEqualTo(5);
    assertThat(job.get("timeout").asText()).isEqualTo("PT30S");
    assertThat(job.get("backoff").get("strategy").asText()).isEqualTo("fixed");
    assertThat(job.get("backoff").get("delay").asText()).isEqualTo("PT10S");
    assertThat(job.get("callback").get("url").asText()).isEqualTo("https://hooks.example/done");
    assertThat(job.get("runAt").asText()).endsWith("Z");
    assertThat(job.get("createdAt").asText()).endsWith("Z");
    assertThat(job.has("result")).isTrue();
    assertThat(job.get("result").isNull()).isTrue();

    Job stored = FIXTURE.stack.queries.find("default", UUID.fromString(id)).orElseThrow();
    assertThat(stored.type()).isEqualTo("email.send");
    assertThat(stored.payload().get("to").asText()).isEqualTo("a@b.c");
    assertThat(stored.priority()).isEqualTo(Priority.HIGH);
    assertThat(stored.tags()).containsExactly("mail", "x");
    assertThat(stored.backoff()).isEqualTo(new Backoff.Fixed(Duration.ofSeconds(10)));
    assertThat(stored.callback().get("headers").get("X-Token").asText()).isEqualTo("t");
    assertThat(queued("default", Priority.HIGH)).contains(id);
    assertThat(queued("default", Priority.NORMAL)).doesNotContain(id);
  }

  @Test
  void defaultsApplyWhenOnlyTheTypeIsGiven() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}");

    assertThat(reply.status()).isEqualTo(201);
    JsonNode job = reply.json();
    assertThat(job.get("priority").asText()).isEqualTo("normal");
    assertThat(job.get("maxAttempts").asInt()).isEqualTo(3);
    assertThat(job.get("payload").isObject()).isTrue();
    assertThat(job.get("payload").isEmpty()).isTrue();
    JsonNode backoff = job.get("backoff");
    assertThat(backoff.get("strategy").asText()).isEqualTo("exponential");
    assertThat(backoff.get("initialDelay").asText()).isEqualTo("PT1S");
    assertThat(backoff.get("factor").asDouble()).isEqualTo(2.0);
    assertThat(backoff.get("maxDelay").asText()).isEqualTo("PT1H");
    assertThat(backoff.get("jitter").asDouble()).isEqualTo(0.2);
    assertThat(Instant.parse(job.get("runAt").asText())).isEqualTo(FIXTURE.clock.instant());
    assertThat(queued("default", Priority.NORMAL)).contains(job.get("id").asText());
    assertThat(
            FIXTURE
                .app
                .getEnvironment()
                .metrics()
                .meter("punctual.api.jobs.submitted.normal")
                .getCount())
        .isPositive();
  }

  @Test
  void aJobDueBeyondTheHorizonIsStoredButNotQueued() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"later\",\"delay\":\"PT1H\"}");

    assertThat(reply.status()).isEqualTo(201);
    String id = reply.json().get("id").asText();
    assertThat(Instant.parse(reply.json().get("runAt").asText()))
        .isEqualTo(FIXTURE.clock.instant().plus(Duration.ofHours(1)));
    assertThat(FIXTURE.stack.queries.find("default", UUID.fromString(id))).isPresent();
    assertThat(queued("default", Priority.NORMAL)).doesNotContain(id);
  }

  @Test
  void aJobDueWithinTheHorizonIsQueuedWithItsRunAtAsScore() {
    Instant runAt = FIXTURE.clock.instant().plus(Duration.ofMinutes(5));
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"soon\",\"priority\":\"low\",\"runAt\":\"" + runAt + "\"}");

    String id = reply.json().get("id").asText();
    Double score =
        FIXTURE.stack.redis.sync().zscore(FIXTURE.stack.keys.queue("default", Priority.LOW), id);
    assertThat(score).isEqualTo((double) runAt.toEpochMilli());
  }

  @Test
  void aJobWithRunAtInThePastIsDueNow() {
    Reply reply =
        FIXTURE
            .http()
            .post("/api/v1/jobs", "{\"type\":\"late\",\"runAt\":\"2001-02-03T04:05:06+02:00\"}");

    assertThat(reply.status()).isEqualTo(201);
    String id = reply.json().get("id").asText();
    assertThat(reply.json().get("runAt").asText()).isEqualTo("2001-02-03T02:05:06Z");
    var claimed = FIXTURE.stack.queue.claim("default", 100, FIXTURE.clock.instant());
    assertThat(claimed.claimed()).extracting(c -> c.id().toString()).contains(id);
  }

  @Test
  void theNamespaceHeaderScopesTheJob() {
    Reply reply = FIXTURE.http().namespace("tenant-a").post("/api/v1/jobs", "{\"type\":\"noop\"}");

    String id = reply.json().get("id").asText();
    assertThat(reply.json().get("namespace").asText()).isEqualTo("tenant-a");
    assertThat(queued("tenant-a", Priority.NORMAL)).contains(id);
    assertThat(FIXTURE.http().get("/api/v1/jobs/" + id).status()).isEqualTo(404);
    assertThat(FIXTURE.http().namespace("tenant-a").get("/api/v1/jobs/" + id).status())
        .isEqualTo(200);
  }

  @Test
  void sameIdempotencyKeyAndSameBodyReturnsTheExistingJob() {
    String body =
        """
        {"type":"charge","payload":{"amount":10,"currency":"EUR"},"idempotencyKey":"order-1"}
        """;
    String sameMeaningOtherOrder =
        """
        {"idempotencyKey":"order-1","payload":{"currency":"EUR","amount":10},
         "type":"charge","priority":"normal","maxAttempts":3}
        """;

    Reply first = FIXTURE.http().post("/api/v1/jobs", body);
    Reply second = FIXTURE.http().post("/api/v1/jobs", sameMeaningOtherOrder);

    assertThat(first.status()).isEqualTo(201);
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.json().get("id")).isEqualTo(first.json().get("id"));
    assertThat(second.header("Location")).isEmpty();
  }

  /**
   * A submit whose commit went through but whose answer was lost before the job reached Redis (a
   * 5xx after an unknown commit): the client's retry with the same idempotency key gets the stored
   * job, and the job is in its queue after it, without waiting for the reaper's reconciliation.
   */
  @Test
  void anIdempotentRetryOfASubmitWhoseAnswerWasLostQueuesTheStoredJob() {
    String body = "{\"type\":\"charge\",\"idempotencyKey\":\"order-lost-answer\"}";
    Reply first = FIXTURE.http().post("/api/v1/jobs", body);
    String id = first.json().get("id").asText();
    // What the lost answer left: the job stored, PENDING, and not in Redis.
    FIXTURE.stack.queue.remove("default", Priority.NORMAL, UUID.fromString(id));
    assertThat(queued("default", Priority.NORMAL)).doesNotContain(id);

    Reply retry = FIXTURE.http().post("/api/v1/jobs", body);

    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.json().get("id").asText()).isEqualTo(id);
    assertThat(retry.json().get("status").asText()).isEqualTo("PENDING");
    assertThat(queued("default", Priority.NORMAL)).contains(id);
  }

  @Test
  void sameIdempotencyKeyWithADifferentBodyIsAConflict() {
    FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"charge\",\"idempotencyKey\":\"order-2\"}");

    Reply conflict =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"charge\",\"idempotencyKey\":\"order-2\",\"priority\":\"high\"}");

    assertThat(conflict.status()).isEqualTo(409);
    assertThat(conflict.contentType()).startsWith("application/problem+json");
    assertThat(conflict.json().get("type").asText())
        .isEqualTo("https://punctual.dev/problems/idempotency-conflict");
    assertThat(conflict.json().get("field").asText()).isEqualTo("idempotencyKey");
    assertThat(conflict.json().get("instance").asText()).isEqualTo("/api/v1/jobs");
  }

  @Test
  void storedJobsAreReadBack() {
    String id =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}").json().get("id").asText();

    Reply reply = FIXTURE.http().get("/api/v1/jobs/" + id);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("id").asText()).isEqualTo(id);
    assertThat(reply.json().get("status").asText()).isEqualTo(JobState.PENDING.name());
  }

  private static List<String> queued(String namespace, Priority priority) {
    return FIXTURE.stack.redis.sync().zrange(FIXTURE.stack.keys.queue(namespace, priority), 0, -1);
  }
}
