package io.punctual.api.outage;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.JobState;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PostgreSQL is the truth: without Redis, jobs are still accepted (the promoter queues them). */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisOutageIT {
  static final ApiFixture FIXTURE = ApiFixture.start(settings());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static ApiSettings settings() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.redisTimeout = Duration.ofMillis(300);
    return settings;
  }

  @Test
  @Order(1)
  void aStalledRedisDelaysASubmitOnlyByTheRedisTimeout() {
    FIXTURE.stack.redis.sync().clientPause(1_500);
    long start = System.nanoTime();

    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}");

    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(reply.status()).isEqualTo(201);
    assertThat(tookMs).isLessThan(1_200);
    String id = reply.json().get("id").asText();
    assertThat(FIXTURE.stack.queries.find("default", UUID.fromString(id))).isPresent();
    // Blocks until the pause is over, so later tests (and classes) find Redis answering.
    assertThat(FIXTURE.stack.redis.sync().ping()).isEqualTo("PONG");
  }

  @Test
  @Order(2)
  void aStalledRedisLetsARateLimitedNamespacesSubmitsThroughUnchecked() {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/namespaces",
                "{\"name\":\"limited\",\"quota\":{\"submitsPerSecond\":100}}");
    assertThat(created.status()).isEqualTo(201);
    HttpSupport limited = FIXTURE.http().namespace("limited");
    assertThat(limited.post("/api/v1/jobs", "{\"type\":\"noop\"}").status()).isEqualTo(201);
    long unchecked = rateUnchecked();
    FIXTURE.stack.redis.sync().clientPause(1_500);
    long start = System.nanoTime();

    Reply reply = limited.post("/api/v1/jobs", "{\"type\":\"noop\"}");

    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(reply.status()).isEqualTo(201);
    // The bucket's wait and the enqueue's, each bounded by api.redisTimeout (300 ms): well before
    // the pause ends.
    assertThat(tookMs).isLessThan(1_400);
    assertThat(rateUnchecked()).isEqualTo(unchecked + 1);
    assertThat(FIXTURE.stack.redis.sync().ping()).isEqualTo("PONG");
  }

  private static long rateUnchecked() {
    return FIXTURE
        .app
        .getEnvironment()
        .metrics()
        .meter("punctual.api.namespaces.rateUnchecked")
        .getCount();
  }

  @Test
  @Order(3)
  void withRedisGoneJobsAreStillAcceptedAndCancelled() {
    FIXTURE.stores.redis().close();

    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}");
    String id = reply.json().get("id").asText();
    Reply cancel = FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "");

    assertThat(reply.status()).isEqualTo(201);
    assertThat(cancel.status()).isEqualTo(200);
    assertThat(FIXTURE.stack.queries.find("default", UUID.fromString(id)).orElseThrow().status())
        .isEqualTo(JobState.CANCELLED);
  }

  @Test
  @Order(4)
  void theHealthCheckReportsRedis() {
    Reply health = FIXTURE.adminHttp().get("/healthcheck");

    assertThat(health.status()).isEqualTo(500);
    assertThat(health.json().get("redis").get("healthy").asBoolean()).isFalse();
    assertThat(health.json().get("postgres").get("healthy").asBoolean()).isTrue();
  }
}
