package io.punctual.api.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The audit trail of mutating requests, as {@code GET /api/v1/audit} and the table show it. */
class AuditIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static HttpSupport http(String namespace) {
    return FIXTURE.http().namespace(namespace);
  }

  /** The entries of {@code namespace}, newest first, once there are {@code count} of them. */
  private static List<JsonNode> entries(String namespace, int count) {
    List<JsonNode> items = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              items.clear();
              Reply page = FIXTURE.http().get("/api/v1/audit?limit=20&namespace=" + namespace);
              assertThat(page.status()).as(page.raw().body()).isEqualTo(200);
              page.json().get("items").forEach(items::add);
              assertThat(items).hasSize(count);
            });
    return items;
  }

  private static String row(JsonNode e) {
    return e.get("action").asText()
        + " | "
        + (e.get("target").isNull() ? "-" : e.get("target").asText())
        + " | "
        + e.get("status").asInt()
        + " | "
        + (e.get("problem").isNull() ? "-" : e.get("problem").asText());
  }

  private static String id(Reply reply, int status) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(status);
    return reply.json().get("id").asText();
  }

  @Test
  void aSequenceOfActionsLeavesExactlyItsTrailInOrder() {
    HttpSupport http = http("audit-seq");
    Instant start = FIXTURE.clock.instant();
    String job = id(http.post("/api/v1/jobs", "{\"type\":\"noop\"}"), 201);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    assertThat(http.post("/api/v1/jobs/" + job + "/cancel", "").status()).isEqualTo(200);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    String schedule =
        id(
            http.post(
                "/api/v1/schedules", "{\"name\":\"tick\",\"every\":\"PT10S\",\"type\":\"noop\"}"),
            201);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    assertThat(http.post("/api/v1/schedules/" + schedule + "/pause", "").status()).isEqualTo(200);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    Reply refused = http.post("/api/v1/jobs/" + job + "/cancel", "");
    assertThat(refused.status()).isEqualTo(409);
    Reply invalid = http.post("/api/v1/jobs", "{\"type\":\"\"}");
    assertThat(invalid.status()).isEqualTo(422);
    // Reads and requests matching no route are not audited.
    http.get("/api/v1/jobs/" + job);
    http.post("/api/v1/nothing-here", "{}");

    List<JsonNode> trail = entries("audit-seq", 6);

    assertThat(trail.stream().map(AuditIT::row))
        .containsExactly(
            "POST /api/v1/jobs | - | 422 | " + invalid.json().get("type").asText(),
            "POST /api/v1/jobs/{id}/cancel | "
                + job
                + " | 409 | https://punctual.dev/problems/job-final",
            "POST /api/v1/schedules/{id}/pause | " + schedule + " | 200 | -",
            "POST /api/v1/schedules | " + schedule + " | 201 | -",
            "POST /api/v1/jobs/{id}/cancel | " + job + " | 200 | -",
            "POST /api/v1/jobs | " + job + " | 201 | -");
    for (JsonNode e : trail) {
      assertThat(e.get("namespace").asText()).isEqualTo("audit-seq");
      assertThat(e.get("keyId").isNull()).isTrue(); // authentication is off
      assertThat(e.get("keyName").asText()).isEqualTo("(auth disabled)");
    }
    assertThat(trail.get(5).get("at").asText()).isEqualTo(start.toString());
    assertThat(trail.get(4).get("at").asText()).isEqualTo(start.plusSeconds(1).toString());
    assertThat(trail.get(0).get("at").asText()).isEqualTo(start.plusSeconds(4).toString());
  }

  @Test
  void aRequestTheAuthorizerRefusesIsAuditedWithWhatIsKnown() {
    String id = UUID.randomUUID().toString();
    Reply refused = http("not a namespace").post("/api/v1/schedules/" + id + "/pause", "");
    assertThat(refused.status()).isEqualTo(400);

    List<JsonNode> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              found.clear();
              FIXTURE
                  .http()
                  .get(
                      "/api/v1/audit?action="
                          + URLEncoder.encode(
                              "POST /api/v1/schedules/{id}/pause", StandardCharsets.UTF_8))
                  .json()
                  .get("items")
                  .forEach(
                      e -> {
                        if (e.get("target").asText().equals(id)) {
                          found.add(e);
                        }
                      });
              assertThat(found).hasSize(1);
            });
    JsonNode entry = found.get(0);
    assertThat(row(entry))
        .isEqualTo(
            "POST /api/v1/schedules/{id}/pause | "
                + id
                + " | 400 | https://punctual.dev/problems/invalid-parameter");
    assertThat(entry.get("namespace").isNull()).isTrue();
    assertThat(entry.get("keyId").isNull()).isTrue();
    assertThat(entry.get("keyName").isNull()).isTrue();
  }

  @Test
  void fastPathAndJerseySubmitsAreAuditedAlike() {
    HttpSupport http = http("audit-fast");
    long handedOn = handedOn();
    String fast = id(http.post("/api/v1/jobs", "{\"type\":\"noop\"}"), 201);
    assertThat(handedOn()).isEqualTo(handedOn);
    // An Accept with a parameter is never taken by the fast path: Jersey answers it.
    String jersey =
        id(
            http.send(
                http.request("/api/v1/jobs")
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json;q=0.9")
                    .header("X-Request-Id", "req-42")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"noop\"}"))),
            201);
    String again =
        id(http.post("/api/v1/jobs", "{\"type\":\"noop\",\"idempotencyKey\":\"k1\"}"), 201);
    assertThat(id(http.post("/api/v1/jobs", "{\"type\":\"noop\",\"idempotencyKey\":\"k1\"}"), 200))
        .isEqualTo(again);

    List<JsonNode> trail = entries("audit-fast", 4);

    assertThat(trail.stream().map(AuditIT::row))
        .containsExactly(
            "POST /api/v1/jobs | " + again + " | 200 | -",
            "POST /api/v1/jobs | " + again + " | 201 | -",
            "POST /api/v1/jobs | " + jersey + " | 201 | -",
            "POST /api/v1/jobs | " + fast + " | 201 | -");
    assertThat(trail.get(2).get("requestId").asText()).isEqualTo("req-42");
    assertThat(trail.get(3).get("requestId").isNull()).isTrue();
  }

  @Test
  void aBatchIsOneEntryNamingItsFirstJobAndHowManyMore() {
    HttpSupport http = http("audit-batch");
    Reply batch =
        http.post(
            "/api/v1/jobs/batch",
            "{\"jobs\":[{\"type\":\"a\"},{\"type\":\"b\"},{\"type\":\"c\"}]}");
    assertThat(batch.status()).as(batch.raw().body()).isEqualTo(201);
    String first = batch.json().get("items").get(0).get("id").asText();

    assertThat(entries("audit-batch", 1).stream().map(AuditIT::row))
        .containsExactly("POST /api/v1/jobs/batch | " + first + " (+2 more) | 201 | -");
  }

  @Test
  void pagesNewestFirstWithAnOpaqueCursorAndFilters() {
    HttpSupport http = http("audit-paging");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(id(http.post("/api/v1/jobs", "{\"type\":\"noop\"}"), 201));
    }
    assertThat(http.post("/api/v1/jobs/" + ids.get(0) + "/cancel", "").status()).isEqualTo(200);
    entries("audit-paging", 6);

    List<String> seen = new ArrayList<>();
    String cursor = "";
    int pages = 0;
    do {
      Reply page =
          FIXTURE
              .http()
              .get(
                  "/api/v1/audit?namespace=audit-paging&limit=2&action="
                      + URLEncoder.encode("POST /api/v1/jobs", StandardCharsets.UTF_8)
                      + cursor);
      assertThat(page.status()).isEqualTo(200);
      page.json().get("items").forEach(e -> seen.add(e.get("target").asText()));
      JsonNode next = page.json().get("nextCursor");
      cursor = next.isNull() ? null : "&cursor=" + next.asText();
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(ids.reversed());
    Reply cancels =
        FIXTURE
            .http()
            .get(
                "/api/v1/audit?namespace=audit-paging&action="
                    + URLEncoder.encode("POST /api/v1/jobs/{id}/cancel", StandardCharsets.UTF_8));
    assertThat(cancels.json().get("items")).hasSize(1);
    Instant now = FIXTURE.clock.instant();
    Reply before =
        FIXTURE.http().get("/api/v1/audit?namespace=audit-paging&to=" + now.minusSeconds(1));
    assertThat(before.json().get("items")).isEmpty();
    Reply during =
        FIXTURE
            .http()
            .get(
                "/api/v1/audit?namespace=audit-paging&from="
                    + now
                    + "&to="
                    + now.plusSeconds(1)
                    + "&keyId=00000000-0000-0000-0000-000000000001");
    assertThat(during.json().get("items")).isEmpty(); // no such key
  }

  @Test
  void badParametersAreProblemsNamingTheParameter() {
    assertBad("limit=0", "limit");
    assertBad("limit=x", "limit");
    assertBad("cursor=not-a-cursor", "cursor");
    assertBad("cursor=" + "bm90LWEtY3Vyc29y", "cursor");
    assertBad("keyId=42", "keyId");
    assertBad("from=yesterday", "from");
    assertBad("from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", "from");
  }

  private static void assertBad(String query, String parameter) {
    Reply reply = FIXTURE.http().get("/api/v1/audit?" + query);
    assertThat(reply.status()).as(query).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("errors").get(0).get("field").asText())
        .as(query)
        .isEqualTo(parameter);
  }

  @Test
  void theTableRefusesUpdateDeleteAndTruncate() {
    String job = id(http("audit-trigger").post("/api/v1/jobs", "{\"type\":\"noop\"}"), 201);
    entries("audit-trigger", 1);
    Jdbi jdbi = FIXTURE.stores.database().jdbi();
    String partition =
        "audit_log_p"
            + LocalDate.ofInstant(FIXTURE.clock.instant(), ZoneOffset.UTC)
                .format(DateTimeFormatter.BASIC_ISO_DATE);

    for (String statement :
        List.of(
            "UPDATE audit_log SET status = 200 WHERE target = '" + job + "'",
            "DELETE FROM audit_log WHERE target = '" + job + "'",
            "UPDATE " + partition + " SET target = 'x' WHERE target = '" + job + "'",
            "DELETE FROM " + partition,
            "TRUNCATE audit_log",
            "TRUNCATE " + partition)) {
      assertThatThrownBy(() -> jdbi.useHandle(h -> h.execute(statement)))
          .as(statement)
          .hasMessageContaining("audit_log is append-only");
    }
    assertThat(entries("audit-trigger", 1).get(0).get("target").asText()).isEqualTo(job);
  }

  private static long handedOn() {
    return APP.getEnvironment()
        .metrics()
        .meter("punctual.api.jobs.submitFastPath.handedOn")
        .getCount();
  }
}
