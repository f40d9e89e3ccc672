package io.punctual.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Errors outside validation come out as problem+json too, from our mappers rather than Dropwizard's
 * defaults (whose bodies look like {"code":..,"message":..}).
 */
class ProblemResponsesIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final String SOME_ID = "019a0000-0000-7000-8000-000000000000";

  @Test
  void unknownRouteIs404Problem() {
    Reply reply = FIXTURE.http().get("/api/v1/nothing-here");

    assertProblem(reply, 404, "not-found");
    assertThat(reply.json().get("instance").asText()).isEqualTo("/api/v1/nothing-here");
  }

  @Test
  void unknownJobIs404Problem() {
    assertProblem(FIXTURE.http().get("/api/v1/jobs/" + SOME_ID), 404, "not-found");
  }

  @Test
  void malformedJobIdIs404Problem() {
    assertProblem(FIXTURE.http().get("/api/v1/jobs/not-a-uuid"), 404, "not-found");
    assertProblem(
        FIXTURE.http().get("/api/v1/jobs/123e4567-e89b-12d3-a456-426614174000"), 404, "not-found");
  }

  @Test
  void wrongMethodIs405ProblemWithAllow() {
    Reply reply = FIXTURE.http().method("DELETE", "/api/v1/jobs/" + SOME_ID);

    assertProblem(reply, 405, "method-not-allowed");
    assertThat(reply.header("Allow")).hasValueSatisfying(a -> assertThat(a).contains("GET"));
    assertProblem(FIXTURE.http().method("PUT", "/api/v1/jobs"), 405, "method-not-allowed");
  }

  @Test
  void wrongContentTypeIs415Problem() {
    assertProblem(
        FIXTURE.http().post("/api/v1/jobs", "type=a", "application/x-www-form-urlencoded"),
        415,
        "unsupported-media-type");
  }

  @Test
  void aBodyOverTheRequestCapIs413WithContentLength() {
    String body = "{\"type\":\"a\",\"tags\":[\"" + "t".repeat(70 * 1024) + "\"]}";

    Reply reply = FIXTURE.http().post("/api/v1/jobs", body);

    assertProblem(reply, 413, "payload-too-large");
    assertThat(reply.json().has("field")).isFalse();
  }

  @Test
  void aChunkedBodyOverTheRequestCapIs413() {
    byte[] body = ("{\"type\":\"a\",\"x\":\"" + "t".repeat(70 * 1024) + "\"}").getBytes();
    HttpSupport http = FIXTURE.http();

    Reply reply =
        http.send(
            http.request("/api/v1/jobs")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(body))));

    assertProblem(reply, 413, "payload-too-large");
  }

  @Test
  void invalidNamespaceHeaderIs400NamingTheHeader() {
    Reply reply = FIXTURE.http().namespace("{bad}").get("/api/v1/jobs");

    assertProblem(reply, 400, "invalid-parameter");
    assertThat(reply.json().get("field").asText()).isEqualTo("Punctual-Namespace");
  }

  @Test
  void invalidJsonIsOurProblemNotDropwizardsMessage() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{nope");

    assertProblem(reply, 400, "invalid-json");
    assertThat(reply.json().has("code")).isFalse();
  }

  @Test
  void anythingAfterTheFirstJsonValueIs400AndStoresNothing() {
    for (String body :
        List.of(
            "{\"type\":\"noop\"} x",
            "{\"type\":\"noop\"}{\"type\":\"noop\"}",
            "{\"type\":\"noop\"} // a comment",
            "[{\"type\":\"noop\"}] 1")) {
      String path = body.startsWith("[") ? "/api/v1/jobs/batch" : "/api/v1/jobs";
      assertProblem(FIXTURE.http().namespace("strict-json").post(path, body), 400, "invalid-json");
    }
    assertThat(FIXTURE.http().namespace("strict-json").get("/api/v1/jobs").json().get("items"))
        .isEmpty();
  }

  @Test
  void aFieldNamedTwiceIs400AndStoresNothing() {
    Reply reply =
        FIXTURE
            .http()
            .namespace("duplicate-keys")
            .post("/api/v1/jobs", "{\"type\":\"noop\",\"type\":\"fail\"}");

    assertProblem(reply, 400, "invalid-json");
    assertThat(reply.json().get("detail").asText()).contains("type");
    assertThat(FIXTURE.http().namespace("duplicate-keys").get("/api/v1/jobs").json().get("items"))
        .isEmpty();
  }

  @Test
  void illegalStateIsA500ProblemWithoutInternals() {
    Reply reply = FIXTURE.http().get("/test/fail/illegal-state");

    assertProblem(reply, 500, "internal");
    assertThat(reply.raw().body()).doesNotContain("secret").doesNotContain("Exception");
  }

  @Test
  void anyOtherErrorIsA500ProblemWithoutInternals() {
    Reply reply = FIXTURE.http().get("/test/fail/runtime");

    assertProblem(reply, 500, "internal");
    assertThat(reply.raw().body()).doesNotContain("secret").doesNotContain("at io.");
  }

  @Test
  void poolTimeoutIs503WithRetryAfter() {
    Reply reply = FIXTURE.http().get("/test/fail/pool-timeout");

    assertProblem(reply, 503, "unavailable");
    assertThat(reply.header("Retry-After")).hasValue("5");
  }

  @Test
  void emptyOptionalIs404Problem() {
    assertProblem(FIXTURE.http().get("/test/fail/empty-optional"), 404, "not-found");
  }

  @Test
  void beanValidationFailureIs422Problem() {
    assertProblem(FIXTURE.http().get("/test/fail/violation"), 422, "invalid-request");
  }

  @Test
  void healthChecksCoverPostgresAndRedis() {
    Reply reply = FIXTURE.adminHttp().get("/healthcheck");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("postgres").get("healthy").asBoolean()).isTrue();
    assertThat(reply.json().get("redis").get("healthy").asBoolean()).isTrue();
  }

  static void assertProblem(Reply reply, int status, String kind) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(status);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("type").asText())
        .isEqualTo("https://punctual.dev/problems/" + kind);
    assertThat(reply.json().get("status").asInt()).isEqualTo(status);
    assertThat(reply.json().get("title").asText()).isNotBlank();
  }
}
