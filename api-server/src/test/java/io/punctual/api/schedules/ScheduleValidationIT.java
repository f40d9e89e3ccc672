package io.punctual.api.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.JobId;
import java.net.http.HttpRequest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad schedule is a 422 problem+json naming the field and what is wrong; nothing is stored.
 */
class ScheduleValidationIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static Stream<Arguments> badSchedules() {
    return Stream.of(
        bad("bad cron", "{'cron':'0 9 * * MONX'}", "cron", "Invalid chars"),
        bad("cron out of range", "{'cron':'61 * * * *'}", "cron", "not in range"),
        bad("four fields", "{'cron':'0 9 * *'}", "cron", "has 4 fields"),
        bad(
            "quartz without ?",
            "{'cron':'0 0 9 * * MON'}",
            "cron",
            "one of day-of-month and day-of-week must be ?"),
        bad("never fires", "{'cron':'0 0 30 2 *'}", "cron", "never fires"),
        bad("unknown zone", "{'cron':'0 9 * * *','timezone':'Mars/Olympus'}", "timezone", "IANA"),
        bad("offset is not a zone", "{'cron':'0 9 * * *','timezone':'+02:00'}", "timezone", "IANA"),
        bad("every below the minimum", "{'every':'PT0.5S'}", "every", "at least PT1S"),
        bad("every not a duration", "{'every':'1 minute'}", "every", "ISO-8601 duration"),
        bad("every zero", "{'every':'PT0S'}", "every", "greater than zero"),
        bad("every a month", "{'every':'P1M'}", "every", "months and years have no fixed length"),
        bad("every a year", "{'every':'P1Y'}", "every", "use cron"),
        bad("cron and every", "{'cron':'* * * * *','every':'PT1M'}", "every", "not both"),
        bad("neither cron nor every", "{}", "cron", "is required"),
        bad(
            "end before start",
            "{'every':'PT1M','startAt':'2031-01-01T00:00:00Z','endAt':'2030-01-01T00:00:00Z'}",
            "endAt",
            "must be after startAt"),
        bad(
            "ends before it could fire",
            "{'cron':'0 9 * * *','endAt':'2020-01-01T00:00:00Z'}",
            "endAt",
            "never fire"),
        bad("bad start", "{'every':'PT1M','startAt':'soon'}", "startAt", "ISO-8601"),
        bad(
            "unknown misfire",
            "{'every':'PT1M','misfire':'later'}",
            "misfire",
            "fire_once, fire_all, skip"),
        bad("unknown overlap", "{'every':'PT1M','overlap':'queue'}", "overlap", "allow, skip"),
        bad("unknown dst gap", "{'every':'PT1M','dst':{'gap':'jump'}}", "dst.gap", "shift, skip"),
        bad(
            "unknown dst overlap",
            "{'every':'PT1M','dst':{'overlap':'last'}}",
            "dst.overlap",
            "first, both"),
        bad("dst not an object", "{'every':'PT1M','dst':'shift'}", "dst", "must be an object"),
        bad("bad priority", "{'every':'PT1M','priority':'urgent'}", "priority", "critical"),
        bad(
            "bad backoff",
            "{'every':'PT1M','backoff':{'strategy':'linear'}}",
            "backoff.strategy",
            "one of"),
        bad("unknown field", "{'every':'PT1M','cronn':'x'}", "cronn", "not a known field"));
  }

  /** {@code extra} gets a name and a type unless it sets them. */
  private static Arguments bad(String name, String extra, String field, String message) {
    String body = extra.replace('\'', '"');
    body = "{\"name\":\"v\",\"type\":\"noop\"," + body.substring(1);
    if (body.endsWith(",}")) {
      body = body.substring(0, body.length() - 2) + "}";
    }
    return Arguments.of(name, body, field, message);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSchedules")
  void aBadScheduleIsA422NamingTheField(String name, String body, String field, String message) {
    Reply reply = FIXTURE.http().post("/api/v1/schedules", body);

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
    assertThat(reply.json().get("errors").get(0).get("message").asText()).contains(message);
    assertThat(reply.json().get("instance").asText()).isEqualTo("/api/v1/schedules");
    assertThat(storedSchedules()).isZero();
  }

  static Stream<Arguments> unstorableText() {
    return Stream.of(
        Arguments.of("{'name':'n\\u0000','every':'PT1M','type':'noop'}", "name"),
        Arguments.of("{'name':'\\ud800','every':'PT1M','type':'noop'}", "name"),
        Arguments.of(
            "{'name':'n','initIdentifier':'i\\u0000','every':'PT1M','type':'noop'}",
            "initIdentifier"),
        Arguments.of(
            "{'name':'n','initIdentifier':'\\udbff!','every':'PT1M','type':'noop'}",
            "initIdentifier"),
        Arguments.of("{'name':'n','every':'PT1M','type':'noop\\u0000'}", "type"),
        Arguments.of("{'name':'n','every':'PT1M','type':'noop','tags':['\\u0000']}", "tags[0]"),
        Arguments.of(
            "{'name':'n','every':'PT1M','type':'noop','payload':{'a':{'b':'\\ud800'}}}",
            "payload.a.b"),
        Arguments.of("{'name':'n','cron':'0 9 * * *\\u0000','type':'noop'}", "cron"));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("unstorableText")
  void aNulOrALoneSurrogateIsA422NamingTheField(String body, String field) {
    Reply reply = FIXTURE.http().post("/api/v1/schedules", body.replace('\'', '"'));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
    assertThat(reply.json().get("errors").get(0).get("message").asText())
        .startsWith("must not contain");
    assertThat(storedSchedules()).isZero();
  }

  @Test
  void aCursorThatDecodesToANulIsNotACursor() {
    String cursor =
        java.util.Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("a\u0000".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    Reply reply = FIXTURE.http().get("/api/v1/schedules?cursor=" + cursor);

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("cursor");
  }

  @Test
  void aCursorThatIsNotUtf8IsNotACursor() {
    // base64url of the bytes ED A0 80: U+D800 on its own, which UTF-8 cannot hold.
    Reply reply = FIXTURE.http().get("/api/v1/schedules?cursor=7aCA");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo("cursor");
  }

  @Test
  void everyInvalidFieldIsListed() {
    Reply reply =
        FIXTURE
            .http()
            .post(
                "/api/v1/schedules",
                "{\"cron\":\"bad\",\"timezone\":\"Nowhere\",\"misfire\":\"x\",\"maxAttempts\":0}");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("errors").findValuesAsText("field"))
        .containsExactly("name", "cron", "timezone", "misfire", "type", "maxAttempts");
  }

  @Test
  void aPutIsValidatedTheSameWay() {
    String id =
        FIXTURE
            .http()
            .post("/api/v1/schedules", "{\"name\":\"put-me\",\"every\":\"PT1M\",\"type\":\"noop\"}")
            .json()
            .get("id")
            .asText();

    Reply reply =
        FIXTURE
            .http()
            .send(
                FIXTURE
                    .http()
                    .request("/api/v1/schedules/" + id)
                    .header("Content-Type", "application/json")
                    .PUT(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"name\":\"put-me\",\"every\":\"PT1M\",\"type\":\"noop\","
                                + "\"timezone\":\"Atlantis/Capital\"}")));

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("timezone");
    assertThat(FIXTURE.http().get("/api/v1/schedules/" + id).json().get("timezone").asText())
        .isEqualTo("UTC");
    FIXTURE.http().method("DELETE", "/api/v1/schedules/" + id);
  }

  @Test
  void aPutToAnUnknownScheduleIsA404EvenWithABadBody() {
    HttpSupport mine = FIXTURE.http().namespace("put-mine");
    HttpSupport elsewhere = FIXTURE.http().namespace("put-elsewhere");
    String unknown = JobId.forScheduledTime(FIXTURE.clock.instant()).toString();
    String other =
        elsewhere
            .post("/api/v1/schedules", "{\"name\":\"theirs\",\"every\":\"PT1M\",\"type\":\"noop\"}")
            .json()
            .get("id")
            .asText();
    String bad = "{\"name\":\"x\",\"every\":\"soon\",\"timezone\":\"Atlantis/Capital\"}";
    try {
      Reply missing = put(mine, "/api/v1/schedules/" + unknown, bad);
      Reply notMine = put(mine, "/api/v1/schedules/" + other, bad); // another namespace's

      assertThat(missing.status()).as(missing.raw().body()).isEqualTo(404);
      assertThat(missing.contentType()).startsWith("application/problem+json");
      assertThat(notMine.status()).as(notMine.raw().body()).isEqualTo(404);
      // The same bad body for a schedule that is there is the 422 naming the fields.
      Reply invalid = put(elsewhere, "/api/v1/schedules/" + other, bad);
      assertThat(invalid.status()).isEqualTo(422);
      assertThat(invalid.json().get("errors").findValuesAsText("field"))
          .containsExactly("every", "timezone", "type");
    } finally {
      elsewhere.method("DELETE", "/api/v1/schedules/" + other);
    }
  }

  private static Reply put(HttpSupport http, String path, String body) {
    return http.send(
        http.request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static int storedSchedules() {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .withHandle(
            h -> h.createQuery("SELECT count(*) FROM schedules").mapTo(Integer.class).one());
  }
}
