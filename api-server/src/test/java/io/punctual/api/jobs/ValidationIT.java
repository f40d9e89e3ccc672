package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every bad input yields a problem+json naming its field, and nothing is stored. */
class ValidationIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static Stream<Arguments> badSubmits() {
    String big = "x".repeat(1100);
    return Stream.of(
        bad("unknown priority", "{'type':'a','priority':'urgent'}", 422, "priority"),
        bad("priority not a string", "{'type':'a','priority':1}", 422, "priority"),
        bad("malformed runAt", "{'type':'a','runAt':'tomorrow'}", 422, "runAt"),
        bad("runAt without offset", "{'type':'a','runAt':'2030-01-01T00:00:00'}", 422, "runAt"),
        bad("negative delay", "{'type':'a','delay':'-PT5S'}", 422, "delay"),
        bad("malformed delay", "{'type':'a','delay':'5 seconds'}", 422, "delay"),
        bad(
            "runAt and delay",
            "{'type':'a','runAt':'2030-01-01T00:00:00Z','delay':'PT1S'}",
            422,
            "delay"),
        bad("missing type", "{'payload':{}}", 422, "type"),
        bad("blank type", "{'type':'  '}", 422, "type"),
        bad("type too long", "{'type':'" + "t".repeat(201) + "'}", 422, "type"),
        bad("type not a string", "{'type':7}", 422, "type"),
        bad("maxAttempts zero", "{'type':'a','maxAttempts':0}", 422, "maxAttempts"),
        bad("maxAttempts over max", "{'type':'a','maxAttempts':101}", 422, "maxAttempts"),
        bad("maxAttempts fractional", "{'type':'a','maxAttempts':2.5}", 422, "maxAttempts"),
        bad("payload over limit", "{'type':'a','payload':{'s':'" + big + "'}}", 413, "payload"),
        bad(
            "non-http callback url",
            "{'type':'a','callback':{'url':'ftp://files.example/x'}}",
            422,
            "callback.url"),
        bad(
            "relative callback url",
            "{'type':'a','callback':{'url':'/hook'}}",
            422,
            "callback.url"),
        bad("callback without url", "{'type':'a','callback':{}}", 422, "callback.url"),
        bad(
            "callback header not a string",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X-A':1}}}",
            422,
            "callback.headers.X-A"),
        bad(
            "unknown backoff strategy",
            "{'type':'a','backoff':{'strategy':'linear'}}",
            422,
            "backoff.strategy"),
        bad(
            "backoff factor below one",
            "{'type':'a','backoff':{'strategy':'exponential','factor':0.5}}",
            422,
            "backoff.factor"),
        bad(
            "backoff jitter above one",
            "{'type':'a','backoff':{'strategy':'exponential','jitter':1.5}}",
            422,
            "backoff.jitter"),
        bad(
            "backoff maxDelay below initialDelay",
            "{'type':'a','backoff':{'strategy':'exponential','initialDelay':'PT1M','maxDelay':'PT1S'}}",
            422,
            "backoff.maxDelay"),
        bad(
            "fixed backoff without delay",
            "{'type':'a','backoff':{'strategy':'fixed'}}",
            422,
            "backoff.delay"),
        bad(
            "bad interval",
            "{'type':'a','backoff':{'strategy':'intervals','intervals':['PT1M','soon']}}",
            422,
            "backoff.intervals[1]"),
        bad("backoff not an object", "{'type':'a','backoff':'fixed'}", 422, "backoff"),
        bad("zero timeout", "{'type':'a','timeout':'PT0S'}", 422, "timeout"),
        bad(
            "idempotencyKey too long",
            "{'type':'a','idempotencyKey':'" + "k".repeat(201) + "'}",
            422,
            "idempotencyKey"),
        bad("tags not an array", "{'type':'a','tags':'x'}", 422, "tags"),
        bad("tag not a string", "{'type':'a','tags':['x',2]}", 422, "tags[1]"),
        bad("unknown field", "{'type':'a','prority':'high'}", 422, "prority"));
  }

  private static Arguments bad(String name, String body, int status, String field) {
    return Arguments.of(name, body.replace('\'', '"'), status, field);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSubmits")
  void badSubmitIsAProblemNamingTheField(String name, String body, int status, String field) {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", body);

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(status);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("status").asInt()).isEqualTo(status);
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
    assertThat(reply.json().get("instance").asText()).isEqualTo("/api/v1/jobs");
    assertThat(reply.json().get("type").asText()).startsWith("https://punctual.dev/problems/");
    assertThat(reply.json().get("title").asText()).isNotBlank();
    assertThat(storedJobs()).isZero();
  }

  @Test
  void allInvalidFieldsAreListedFirstOneOnTop() {
    Reply reply =
        FIXTURE.http().post("/api/v1/jobs", "{\"priority\":\"x\",\"maxAttempts\":0,\"tags\":[1]}");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("type").asText())
        .isEqualTo("https://punctual.dev/problems/invalid-request");
    assertThat(reply.json().get("field").asText()).isEqualTo("type");
    assertThat(reply.json().get("errors").findValuesAsText("field"))
        .containsExactly("type", "priority", "maxAttempts", "tags[0]");
    assertThat(reply.json().get("errors").get(1).get("message").asText())
        .isEqualTo("must be one of critical, high, normal, low");
  }

  @Test
  void invalidJsonIsA400WithThePointerWhereItBroke() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\": \"a\", \"payload\": {\"x\": }}");

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("type").asText())
        .isEqualTo("https://punctual.dev/problems/invalid-json");
    assertThat(reply.json().get("field").asText()).isEqualTo("/payload/x");
    assertThat(reply.json().get("detail").asText()).contains("line 1");
  }

  @Test
  void truncatedJsonIsA400() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "{\"type\": \"a\"");

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("type").asText()).endsWith("/invalid-json");
  }

  @Test
  void anEmptyBodyIsAProblem() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
  }

  @Test
  void aBodyThatIsNotAnObjectIsA422() {
    Reply reply = FIXTURE.http().post("/api/v1/jobs", "[1,2]");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("errors").get(0).get("message").asText()).contains("JSON object");
  }

  private static int storedJobs() {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Integer.class).one());
  }
}
