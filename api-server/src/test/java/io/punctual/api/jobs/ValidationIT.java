package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import java.net.http.HttpRequest;
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
            "callback url with credentials",
            "{'type':'a','callback':{'url':'https://user:secret@hooks.example/x'}}",
            422,
            "callback.url"),
        bad(
            "callback header value over 4096 characters",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X-A':'"
                + "v".repeat(4097)
                + "'}}}",
            422,
            "callback.headers.X-A"),
        bad(
            "callback header given the placeholder reads show",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X-A':'(hidden)'}}}",
            422,
            "callback.headers.X-A"),
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
        bad("unknown field", "{'type':'a','prority':'high'}", 422, "prority"),
        bad(
            "backoff factor a string",
            "{'type':'a','backoff':{'factor':'2.0'}}",
            422,
            "backoff.factor"),
        bad("trailing NUL in type", "{'type':'noop\\u0000'}", 422, "type"),
        bad("NUL inside type", "{'type':'a\\u0000b'}", 422, "type"),
        bad("lone high surrogate in type", "{'type':'a\\ud800'}", 422, "type"),
        bad("lone low surrogate in type", "{'type':'\\udc00a'}", 422, "type"),
        bad("surrogates in the wrong order", "{'type':'\\ude00\\ud83d'}", 422, "type"),
        bad("NUL in a tag", "{'type':'a','tags':['ok','x\\u0000']}", 422, "tags[1]"),
        bad("lone surrogate in a tag", "{'type':'a','tags':['\\udbff']}", 422, "tags[0]"),
        bad(
            "NUL in idempotencyKey",
            "{'type':'a','idempotencyKey':'k\\u0000'}",
            422,
            "idempotencyKey"),
        bad(
            "lone surrogate in idempotencyKey",
            "{'type':'a','idempotencyKey':'\\ud800k'}",
            422,
            "idempotencyKey"),
        bad(
            "NUL in a callback header value",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X-A':'v\\u0000'}}}",
            422,
            "callback.headers.X-A"),
        bad(
            "lone surrogate in a callback header value",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X-A':'\\ud800'}}}",
            422,
            "callback.headers.X-A"),
        bad(
            "NUL in a callback header name",
            "{'type':'a','callback':{'url':'http://h/x','headers':{'X\\u0000A':'v'}}}",
            422,
            "callback.headers.X\\u0000A"),
        bad(
            "NUL in the callback url",
            "{'type':'a','callback':{'url':'http://h/x\\u0000'}}",
            422,
            "callback.url"),
        bad(
            "NUL in a payload value",
            "{'type':'a','payload':{'customer':{'name':'Ann\\u0000'}}}",
            422,
            "payload.customer.name"),
        bad(
            "lone surrogate in a payload value",
            "{'type':'a','payload':{'customer':{'name':'\\ud800'}}}",
            422,
            "payload.customer.name"),
        bad(
            "NUL in a payload key",
            "{'type':'a','payload':{'customer':{'na\\u0000me':1}}}",
            422,
            "payload.customer.na\\u0000me"),
        bad(
            "lone surrogate in a payload key (malformed JSON to the parser)",
            "{'type':'a','payload':{'\\udfff':1}}",
            400,
            "/payload"),
        bad(
            "NUL in a payload array",
            "{'type':'a','payload':{'items':[1,{'x':['\\u0000']}]}}",
            422,
            "payload.items[1].x[0]"),
        bad(
            "a payload that is a string with a NUL",
            "{'type':'a','payload':'\\u0000'}",
            422,
            "payload"),
        bad("NUL in priority", "{'type':'a','priority':'high\\u0000'}", 422, "priority"),
        bad(
            "NUL in backoff strategy",
            "{'type':'a','backoff':{'strategy':'fixed\\u0000','delay':'PT1S'}}",
            422,
            "backoff.strategy"),
        bad(
            "lone surrogate in a nested payload key (malformed JSON to the parser)",
            "{'type':'a','payload':{'a':{'\\ud800':1}}}",
            400,
            "/payload/a"));
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

  @Test
  void everyFieldWithANulOrALoneSurrogateIsNamedAtOnce() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"a\\u0000\",\"tags\":[\"\\ud800\"],"
                    + "\"payload\":{\"k\":\"\\u0000\"}}");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("errors").findValuesAsText("field"))
        .containsExactly("type", "tags[0]", "payload.k");
    assertThat(reply.json().get("errors").get(0).get("message").asText())
        .isEqualTo("must not contain a NUL character (U+0000)");
    assertThat(reply.json().get("errors").get(1).get("message").asText())
        .isEqualTo("must not contain a lone UTF-16 surrogate (U+D800)");
    assertThat(storedJobs()).isZero();
  }

  @Test
  void aLoneSurrogateSentAsRawBytesIsRefusedAsMalformedNotStoredAsAQuestionMark() {
    // "type":"a<ED A0 80>": U+D800 encoded on its own, as no valid UTF-8 can be.
    byte[] body = {
      '{',
      '"',
      't',
      'y',
      'p',
      'e',
      '"',
      ':',
      '"',
      'a',
      (byte) 0xED,
      (byte) 0xA0,
      (byte) 0x80,
      '"',
      '}'
    };
    Reply reply =
        FIXTURE
            .http()
            .send(
                FIXTURE
                    .http()
                    .request("/api/v1/jobs")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)));

    // The parser refuses the bytes as invalid UTF-8 before any field is read.
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("type").asText()).endsWith("/invalid-json");
    assertThat(reply.json().get("detail").asText()).contains("surrogate");
    assertThat(storedJobs()).isZero();
  }

  @Test
  void aBatchNamesTheItemWithTheNulAndStoresNothing() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs/batch",
                "{\"jobs\":[{\"type\":\"a\"},{\"type\":\"b\"},{\"type\":\"c\\u0000\"}]}");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("jobs[2].type");
    assertThat(storedJobs()).isZero();
  }

  @Test
  void everyBadBackoffFieldIsNamedAtOnce() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"a\",\"backoff\":{\"factor\":\"2.0\",\"jitter\":5,"
                    + "\"initialDelay\":\"soon\",\"delay\":\"PT1S\"}}");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.json().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder(
            "backoff.factor", "backoff.jitter", "backoff.initialDelay", "backoff.delay");
    assertThat(storedJobs()).isZero();
  }

  @Test
  void leftOutBackoffFieldsTakeTheDocumentedDefaults() {
    Reply empty = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"a\",\"backoff\":{}}");
    Reply factor =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"a\",\"backoff\":{\"factor\":3.0}}");

    assertThat(empty.status()).as(empty.raw().body()).isEqualTo(201);
    assertBackoff(empty.json().get("backoff"), 2.0);
    assertThat(factor.status()).as(factor.raw().body()).isEqualTo(201);
    assertBackoff(factor.json().get("backoff"), 3.0);
    Reply stored = FIXTURE.http().get("/api/v1/jobs/" + factor.json().get("id").asText());
    assertThat(stored.json().get("backoff")).isEqualTo(factor.json().get("backoff"));
    deleteJobs();
  }

  @Test
  void aSurrogatePairIsTextLikeAnyOtherAndRoundTrips() {
    String emoji = "\uD83D\uDE00"; // U+1F600, sent escaped and raw
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/jobs",
                "{\"type\":\"smile"
                    + emoji
                    + "\",\"tags\":[\"\\ud83d\\ude00\"],\"idempotencyKey\":\"k"
                    + emoji
                    + "\",\"payload\":{\"\\ud83d\\ude00\":\"hi "
                    + emoji
                    + "\"}}");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    Reply stored = FIXTURE.http().get("/api/v1/jobs/" + reply.json().get("id").asText());
    assertThat(stored.json().get("type").asText()).isEqualTo("smile" + emoji);
    assertThat(stored.json().get("tags").get(0).asText()).isEqualTo(emoji);
    assertThat(stored.json().get("idempotencyKey").asText()).isEqualTo("k" + emoji);
    assertThat(stored.json().get("payload").get(emoji).asText()).isEqualTo("hi " + emoji);
    deleteJobs();
  }

  private static void assertBackoff(JsonNode backoff, double factor) {
    assertThat(backoff.get("strategy").asText()).isEqualTo("exponential");
    assertThat(backoff.get("initialDelay").asText()).isEqualTo("PT1S");
    assertThat(backoff.get("factor").asDouble()).isEqualTo(factor);
    assertThat(backoff.get("maxDelay").asText()).isEqualTo("PT1H");
    assertThat(backoff.get("jitter").asDouble()).isEqualTo(0.2);
  }

  private static void deleteJobs() {
    FIXTURE.stack.database.jdbi().useHandle(h -> h.execute("DELETE FROM jobs"));
  }

  private static int storedJobs() {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Integer.class).one());
  }
}
