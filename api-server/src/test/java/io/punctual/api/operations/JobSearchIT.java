package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.store.PayloadIndex;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class JobSearchIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  final Jobs jobs = new Jobs(FIXTURE);

  @Test
  void findsTheJobOfAnIdempotencyKeyInItsNamespaceOnly() {
    String id = jobs.submit("{\"type\":\"noop\",\"idempotencyKey\":\"order-77\"}");
    jobs.submit("{\"type\":\"noop\",\"idempotencyKey\":\"order-78\"}");
    String other =
        jobs.submit(
            FIXTURE.http().namespace("search-other"),
            "{\"type\":\"noop\",\"idempotencyKey\":\"order-77\"}");

    assertThat(ids("/api/v1/jobs?idempotencyKey=order-77")).containsExactly(id);
    assertThat(ids("/api/v1/jobs?idempotencyKey=order-77&status=FAILED")).isEmpty();
    assertThat(ids("/api/v1/jobs?idempotencyKey=nope")).isEmpty();
    Reply otherNs =
        FIXTURE.http().namespace("search-other").get("/api/v1/jobs?idempotencyKey=order-77");
    assertThat(otherNs.json().get("items").get(0).get("id").asText()).isEqualTo(other);
  }

  @Test
  void findsEveryJobWhosePayloadContainsThePairsWithAndWithoutTheIndex() {
    String a = jobs.submit("{\"type\":\"noop\",\"payload\":{\"customerId\":42,\"x\":1}}");
    String b = jobs.submit("{\"type\":\"noop\",\"payload\":{\"customerId\":42,\"x\":2}}");
    jobs.submit("{\"type\":\"noop\",\"payload\":{\"customerId\":43}}");
    jobs.submit("{\"type\":\"noop\",\"payload\":{\"customerId\":\"42\"}}");
    jobs.submit(
        FIXTURE.http().namespace("search-other"),
        "{\"type\":\"noop\",\"payload\":{\"customerId\":42}}");

    PayloadIndex index = new PayloadIndex(FIXTURE.stack.database.jdbi());
    assertThat(index.valid()).isFalse();
    // without the index: within a range of at most api.payloadSearchMaxRange
    assertThat(ids("/api/v1/jobs?limit=20&payload=" + encode("{\"customerId\":42}") + aroundNow()))
        .containsExactlyInAnyOrder(a, b);

    assertThat(index.ensure(true)).isTrue();
    assertThat(index.valid()).isTrue();
    assertThat(index.ensure(true)).isFalse();
    FIXTURE.clock.advance(Duration.ofSeconds(10)); // the API reads again whether the index exists
    assertThat(payload("{\"customerId\":42}")).containsExactlyInAnyOrder(a, b);
    assertThat(payload("{\"customerId\":42,\"x\":2}")).containsExactly(b);
    assertThat(payload("{}")).hasSizeGreaterThanOrEqualTo(4);

    assertThat(index.ensure(false)).isTrue();
    assertThat(index.valid()).isFalse();
    FIXTURE.clock.advance(Duration.ofSeconds(10));
    assertThat(FIXTURE.http().get("/api/v1/jobs?payload=" + encode("{}")).status()).isEqualTo(400);
  }

  @Test
  void withoutTheIndexAPayloadSearchNeedsARangeOfAtMostADayNamingItAndThePayload() {
    String json = encode("{\"customerId\":42}");
    Instant now = FIXTURE.clock.instant();
    String[][] refused = {
      {"", "from"},
      {"&from=" + now.minus(Duration.ofHours(1)), "to"},
      {"&to=" + now, "from"},
      {"&from=" + now.minus(Duration.ofDays(2)) + "&to=" + now, "to"},
      {"&from=" + now.minus(Duration.ofDays(1)).minusMillis(1) + "&to=" + now, "to"},
    };
    for (String[] c : refused) {
      Reply reply = FIXTURE.http().get("/api/v1/jobs?payload=" + json + c[0]);

      assertThat(reply.status()).as(c[0]).isEqualTo(400);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("type").asText()).endsWith("/invalid-parameter");
      assertThat(reply.json().get("field").asText()).as(c[0]).isEqualTo(c[1]);
      assertThat(reply.json().get("errors").findValuesAsText("field"))
          .containsExactly(c[1], "payload");
      assertThat(reply.json().get("detail").asText()).contains("api.payloadSearchMaxRange");
    }
    Reply day =
        FIXTURE
            .http()
            .get(
                "/api/v1/jobs?payload="
                    + json
                    + "&from="
                    + now.minus(Duration.ofDays(1))
                    + "&to="
                    + now);
    assertThat(day.status()).as(day.raw().body()).isEqualTo(200);
    // other searches need no range
    assertThat(FIXTURE.http().get("/api/v1/jobs?type=noop").status()).isEqualTo(200);
  }

  /** A range of two hours around the test clock's now, as query parameters. */
  private static String aroundNow() {
    Instant now = FIXTURE.clock.instant();
    return "&from=" + now.minus(Duration.ofHours(1)) + "&to=" + now.plus(Duration.ofHours(1));
  }

  @Test
  void aPayloadThatIsNotAJsonObjectIsA400NamingPayload() {
    for (String bad : List.of("{\"customerId\":", "42", "[1]", "not json")) {
      Reply reply = FIXTURE.http().get("/api/v1/jobs?payload=" + encode(bad));
      assertThat(reply.status()).as(bad).isEqualTo(400);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("field").asText()).isEqualTo("payload");
    }
  }

  private static List<String> payload(String json) {
    return ids("/api/v1/jobs?limit=20&payload=" + encode(json));
  }

  private static List<String> ids(String path) {
    Reply reply = FIXTURE.http().get(path);
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (JsonNode item : reply.json().get("items")) {
      out.add(item.get("id").asText());
    }
    return out;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
