package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.queue.CancelNotice;
import io.punctual.queue.WakeListener;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CancelJobIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void cancellingAPendingJobStoresItAndTakesItOutOfRedis() {
    String id = submit("{\"type\":\"noop\",\"priority\":\"high\"}");
    assertThat(queued(Priority.HIGH)).contains(id);

    Reply reply = FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("CANCELLED");
    assertThat(reply.json().get("finishedAt").isNull()).isFalse();
    assertThat(queued(Priority.HIGH)).doesNotContain(id);
    assertThat(FIXTURE.stack.queries.find("default", UUID.fromString(id)).orElseThrow().status())
        .isEqualTo(JobState.CANCELLED);
  }

  @Test
  void cancellingAgainIsA409Problem() {
    String id = submit("{\"type\":\"noop\"}");
    FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "");

    Reply again = FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "");

    assertThat(again.status()).isEqualTo(409);
    assertThat(again.contentType()).startsWith("application/problem+json");
    assertThat(again.json().get("type").asText()).endsWith("/job-final");
    assertThat(again.json().get("detail").asText()).contains("CANCELLED");
  }

  @Test
  void aRunningJobsCancelIsAnnouncedToTheWorkersOnceCommitted() throws Exception {
    String id = submit("{\"type\":\"noop\"}");
    FIXTURE.stack.transitions.claim(List.of(UUID.fromString(id)), "worker-1");
    CompletableFuture<CancelNotice> heard = new CompletableFuture<>();
    try (WakeListener listener =
        WakeListener.subscribe(
            FIXTURE.stack.redisClient,
            FIXTURE.stack.keys,
            List.of("default"),
            (ns, due) -> {},
            heard::complete)) {

      Reply reply = FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.json().get("status").asText()).isEqualTo("CANCELLED");
      CancelNotice notice = heard.get(5, TimeUnit.SECONDS);
      assertThat(notice.jobId()).hasToString(id);
      assertThat(notice.attempt()).isEqualTo(1);
      assertThat(notice.cancelledAt())
          .isEqualTo(java.time.Instant.parse(reply.json().get("finishedAt").asText()));
    }
  }

  @Test
  void cancellingAnUnknownJobIs404Problem() {
    Reply reply =
        FIXTURE.http().post("/api/v1/jobs/019a0000-0000-7000-8000-000000000000/cancel", "");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.contentType()).startsWith("application/problem+json");
  }

  @Test
  void aJobOfAnotherNamespaceCannotBeCancelled() {
    String id = submit("{\"type\":\"noop\"}");

    Reply reply = FIXTURE.http().namespace("other").post("/api/v1/jobs/" + id + "/cancel", "");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(FIXTURE.stack.queries.find("default", UUID.fromString(id)).orElseThrow().status())
        .isEqualTo(JobState.PENDING);
  }

  private static String submit(String body) {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", body);
    assertThat(reply.status()).isEqualTo(201);
    return reply.json().get("id").asText();
  }

  private static List<String> queued(Priority priority) {
    return FIXTURE.stack.redis.sync().zrange(FIXTURE.stack.keys.queue("default", priority), 0, -1);
  }
}
