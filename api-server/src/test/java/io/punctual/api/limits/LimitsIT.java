package io.punctual.api.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The limit and queue routes: create, read, replace, delete, validation, pause and resume. */
class LimitsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void createReadReplaceListAndDelete() {
    Reply created =
        FIXTURE
            .http()
            .put(
                "/api/v1/limits/sleepers",
                """
                {"type":"sleep","key":"customerId","concurrency":2,
                 "rate":{"limit":10,"period":"PT1S"}}
                """);
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("concurrency").asInt()).isEqualTo(2);
    assertThat(created.json().get("rate").get("burst").asInt()).isEqualTo(10); // the limit's
    assertThat(created.json().get("rate").get("period").asText()).isEqualTo("PT1S");
    assertThat(created.json().get("namespace").asText()).isEqualTo("default");

    Reply replaced =
        FIXTURE.http().put("/api/v1/limits/sleepers", "{\"type\":\"sleep\",\"concurrency\":3}");
    assertThat(replaced.status()).isEqualTo(200);
    assertThat(replaced.json().has("rate")).isFalse();
    assertThat(replaced.json().has("key")).isFalse();

    Reply read = FIXTURE.http().get("/api/v1/limits/sleepers");
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().get("concurrency").asInt()).isEqualTo(3);
    assertThat(FIXTURE.http().get("/api/v1/limits").json().get("items").size()).isEqualTo(1);
    // Another namespace sees none of it.
    assertThat(FIXTURE.http().namespace("other").get("/api/v1/limits/sleepers").status())
        .isEqualTo(404);

    Reply sameType =
        FIXTURE.http().put("/api/v1/limits/again", "{\"type\":\"sleep\",\"concurrency\":1}");
    assertThat(sameType.status()).isEqualTo(409);
    assertThat(sameType.raw().body()).contains("\"type\"");

    assertThat(FIXTURE.http().method("DELETE", "/api/v1/limits/sleepers").status()).isEqualTo(204);
    assertThat(FIXTURE.http().get("/api/v1/limits/sleepers").status()).isEqualTo(404);
    assertThat(FIXTURE.http().method("DELETE", "/api/v1/limits/sleepers").status()).isEqualTo(404);
  }

  @Test
  void invalidLimitsAre422NamingTheField() {
    assertField("{\"type\":\"t\"}", "concurrency");
    assertField("{\"concurrency\":1}", "type");
    assertField("{\"type\":\"t\",\"concurrency\":0}", "concurrency");
    assertField("{\"type\":\"t\",\"concurrency\":\"2\"}", "concurrency");
    assertField("{\"type\":\"t\",\"rate\":{\"period\":\"PT1S\"}}", "rate.limit");
    assertField("{\"type\":\"t\",\"rate\":{\"limit\":1}}", "rate.period");
    assertField("{\"type\":\"t\",\"rate\":{\"limit\":1,\"period\":\"soon\"}}", "rate.period");
    assertField("{\"type\":\"t\",\"rate\":{\"limit\":1,\"period\":\"P2D\"}}", "rate.period");
    assertField(
        "{\"type\":\"t\",\"rate\":{\"limit\":1,\"period\":\"PT1S\",\"burst\":0}}", "rate.burst");
    assertField("{\"type\":\"t\",\"rate\":5}", "rate");
    assertField(
        "{\"type\":\"t\",\"concurrency\":1,\"slowKeyOnRetryAfter\":\"yes\"}",
        "slowKeyOnRetryAfter");
    assertField("{\"type\":\"t\",\"concurrency\":1,\"color\":\"red\"}", "color");
    assertField("{\"type\":\"t\",\"concurrency\":1,\"key\":\" \"}", "key");
    Reply badName = FIXTURE.http().put("/api/v1/limits/-bad", "{\"type\":\"t\",\"concurrency\":1}");
    assertThat(badName.status()).isEqualTo(422);
    assertThat(badName.raw().body()).contains("name");
    assertThat(FIXTURE.http().put("/api/v1/limits/x", "[1]").status()).isEqualTo(422);
    assertThat(FIXTURE.http().put("/api/v1/limits/x", "{").status()).isEqualTo(400);
    assertThat(FIXTURE.http().get("/api/v1/limits/x").status()).isEqualTo(404);
  }

  private static void assertField(String body, String field) {
    Reply reply = FIXTURE.http().put("/api/v1/limits/checked", body);
    assertThat(reply.status()).as(body).isEqualTo(422);
    assertThat(reply.header("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    assertThat(reply.raw().body()).as(body).contains("\"" + field + "\"");
  }

  @Test
  void aJobTakesItsOwnConcurrencyKey() {
    Reply submitted =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"keyed\",\"concurrencyKey\":\"tenant-7\"}");
    assertThat(submitted.status()).isEqualTo(201);
    String id = submitted.json().get("id").asText();
    String stored =
        FIXTURE
            .stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT concurrency_key FROM jobs WHERE id = CAST(:id AS uuid)")
                        .bind("id", id)
                        .mapTo(String.class)
                        .one());
    assertThat(stored).isEqualTo("tenant-7");
    Reply tooLong =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"keyed\",\"concurrencyKey\":\"" + "k".repeat(300) + "\"}");
    assertThat(tooLong.status()).isIn(413, 422);
    assertThat(tooLong.raw().body()).contains("concurrencyKey");
  }

  @Test
  void pauseListAndResumeAType() {
    Reply paused = FIXTURE.http().post("/api/v1/queues/report/pause", "");
    assertThat(paused.status()).isEqualTo(200);
    assertThat(paused.json().get("paused").asBoolean()).isTrue();
    assertThat(FIXTURE.http().post("/api/v1/queues/report/pause", "").status()).isEqualTo(200);
    Reply list = FIXTURE.http().get("/api/v1/queues");
    assertThat(list.json().get("paused").get(0).get("type").asText()).isEqualTo("report");
    assertThat(FIXTURE.http().namespace("other").get("/api/v1/queues").json().get("paused").size())
        .isZero();
    Reply resumed = FIXTURE.http().post("/api/v1/queues/report/resume", "");
    assertThat(resumed.status()).isEqualTo(200);
    assertThat(resumed.json().get("paused").asBoolean()).isFalse();
    assertThat(FIXTURE.http().get("/api/v1/queues").json().get("paused").size()).isZero();
  }
}
