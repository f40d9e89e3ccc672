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

  /** Creates a key as the admin; answers its id and secret. */
  private static String[] createKey(String name, String role, String namespaces) {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\""
                    + name
                    + "\",\"role\":\""
                    + role
                    + "\",\"namespaces\":"
                    + namespaces
                    + "}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    return new String[] {created.json().get("id").asText(), created.json().get("secret").asText()};
  }

  /** The entries sent with {@code X-Request-Id: requestId}, once there are {@code count}. */
  private static List<JsonNode> byRequestId(String requestId, int count) {
    List<JsonNode> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              found.clear();
              Reply page = FIXTURE.http().get("/api/v1/audit?limit=20");
              assertThat(page.status()).as(page.raw().body()).isEqualTo(200);
              page.json()
                  .get("items")
                  .forEach(
                      e -> {
                        if (requestId.equals(e.get("requestId").asText(null))) {
                          found.add(e);
                        }
                      });
              assertThat(found).hasSize(count);
            });
    return found;
  }

  private static Reply post(HttpSupport http, String path, String body, String requestId) {
    return http.send(
        http.request(path)
            .header("Content-Type", "application/json")
            .header("X-Request-Id", requestId)
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  @Test
  void aSequenceOfActionsLeavesExactlyItsTrailInOrder() {
    String[] viewer = createKey("audit-viewer", "viewer", "[\"audit-seq\"]");
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
    Reply forbidden =
        http("audit-seq").key(viewer[1]).post("/api/v1/schedules/" + schedule + "/resume", "");
    assertThat(forbidden.status()).isEqualTo(403);
    // Reads and requests matching no route are not audited.
    http.get("/api/v1/jobs/" + job);
    http.post("/api/v1/nothing-here", "{}");

    List<JsonNode> trail = entries("audit-seq", 7);

    assertThat(trail.stream().map(AuditIT::row))
        .containsExactly(
            "POST /api/v1/schedules/{id}/resume | "
                + schedule
                + " | 403 | https://punctual.dev/problems/forbidden",
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
    }
    assertThat(trail.get(0).get("keyId").asText()).isEqualTo(viewer[0]);
    assertThat(trail.get(0).get("keyName").asText()).isEqualTo("audit-viewer");
    for (JsonNode e : trail.subList(1, 7)) {
      assertThat(e.get("keyName").asText()).isEqualTo("bootstrap"); // the fixture's admin key
      assertThat(e.get("keyId").asText())
          .isNotEmpty()
          .isEqualTo(trail.get(6).get("keyId").asText());
    }
    assertThat(trail.get(6).get("at").asText()).isEqualTo(start.toString());
    assertThat(trail.get(5).get("at").asText()).isEqualTo(start.plusSeconds(1).toString());
    assertThat(trail.get(0).get("at").asText()).isEqualTo(start.plusSeconds(4).toString());
  }

  @Test
  void refusedKeysAreCountedPerSourceAndReasonAndAForbiddenKeyIsAnEntryOfItsOwn() {
    String[] scoped = createKey("audit-scoped", "operator", "[\"audit-auth\"]");
    String request = UUID.randomUUID().toString();
    String job = UUID.randomUUID().toString();
    HttpSupport anonymous = http("audit-auth").key(null);
    Instant first = FIXTURE.clock.instant();
    // 401 without a key, on the fast path's route (handed on to Jersey) and on another.
    assertThat(post(anonymous, "/api/v1/jobs", "{\"type\":\"noop\"}", request).status())
        .isEqualTo(401);
    assertThat(post(anonymous, "/api/v1/jobs/" + job + "/cancel", "", request).status())
        .isEqualTo(401);
    assertThat(post(anonymous, "/api/v1/jobs", "{}", request).status()).isEqualTo(401);
    // 401 with a key that is not one: counted under its own reason, and nothing of the key kept
    String wrong = "pct_" + "W".repeat(43);
    FIXTURE.clock.advance(Duration.ofMillis(5));
    assertThat(post(http("audit-auth").key(wrong), "/api/v1/jobs", "{}", request).status())
        .isEqualTo(401);
    // 403: a valid key naming a namespace it may not act in: an entry of its own, at once
    assertThat(post(http("elsewhere").key(scoped[1]), "/api/v1/jobs", "{}", request).status())
        .isEqualTo(403);

    List<JsonNode> trail = byRequestId(request, 1);
    assertThat(trail.stream().map(AuditIT::row))
        .containsExactly("POST /api/v1/jobs | - | 403 | https://punctual.dev/problems/forbidden");
    assertThat(trail.get(0).get("keyId").asText()).isEqualTo(scoped[0]);
    assertThat(trail.get(0).get("keyName").asText()).isEqualTo("audit-scoped");
    assertThat(trail.get(0).get("kind").asText()).isEqualTo("request");
    assertThat(trail.get(0).get("count").asInt()).isEqualTo(1);

    // the refusals are stored once their minute is over
    FIXTURE.clock.advance(Duration.ofMinutes(1));
    List<JsonNode> refusals = refusalsSince(first, 3);
    assertThat(refusals.stream().map(AuditIT::refusal))
        .containsExactlyInAnyOrder(
            "POST /api/v1/jobs | no key | 2",
            "POST /api/v1/jobs/{id}/cancel | no key | 1",
            "POST /api/v1/jobs | unknown key | 1");
    for (JsonNode e : refusals) {
      assertThat(e.get("status").asInt()).isEqualTo(401);
      assertThat(e.get("problem").asText()).isEqualTo("https://punctual.dev/problems/unauthorized");
      assertThat(e.get("source").asText()).isIn("127.0.0.1", "0:0:0:0:0:0:0:1");
      assertThat(e.get("keyId").isNull()).isTrue();
      assertThat(e.get("keyName").isNull()).isTrue();
      assertThat(e.get("namespace").isNull()).isTrue();
      assertThat(e.get("target").isNull()).isTrue();
      assertThat(e.get("requestId").isNull()).isTrue();
      assertThat(Instant.parse(e.get("firstAt").asText()))
          .isBeforeOrEqualTo(Instant.parse(e.get("at").asText()));
    }
    assertThat(FIXTURE.http().get("/api/v1/audit?limit=50").raw().body()).doesNotContain(wrong);
  }

  @Test
  void twoThousandRefusedKeysAddOneEntry() {
    Instant first = FIXTURE.clock.instant();
    HttpSupport http = FIXTURE.http();
    for (int i = 0; i < 2_000; i++) {
      Reply refused =
          http.key("pct_" + UUID.randomUUID() + "-flood")
              .post("/api/v1/jobs/batch", "{\"jobs\":[{\"type\":\"noop\"}]}");
      assertThat(refused.status()).isEqualTo(401);
    }
    FIXTURE.clock.advance(Duration.ofMinutes(1));

    List<JsonNode> refusals = refusalsSince(first, 1);

    assertThat(refusals.stream().map(AuditIT::refusal))
        .containsExactly("POST /api/v1/jobs/batch | unknown key | 2000");
  }

  /**
   * The summaries of refused authentications stored since {@code since}, once there are {@code
   * count}.
   */
  private static List<JsonNode> refusalsSince(Instant since, int count) {
    List<JsonNode> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              found.clear();
              Reply page = FIXTURE.http().get("/api/v1/audit?limit=20&from=" + since);
              assertThat(page.status()).as(page.raw().body()).isEqualTo(200);
              page.json()
                  .get("items")
                  .forEach(
                      e -> {
                        if (e.get("kind").asText().equals("refusals")) {
                          found.add(e);
                        }
                      });
              assertThat(found).hasSize(count);
            });
    return found;
  }

  private static String refusal(JsonNode e) {
    return e.get("action").asText()
        + " | "
        + e.get("reason").asText()
        + " | "
        + e.get("count").asInt();
  }

  @Test
  void aCreatedKeyIsAuditedWithoutItsSecretAndOnlyAdminsReadTheLog() {
    String[] operator = createKey("audit-operator", "operator", "[\"*\"]");

    List<JsonNode> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              found.clear();
              Reply page =
                  FIXTURE
                      .http()
                      .get(
                          "/api/v1/audit?action="
                              + URLEncoder.encode("POST /api/v1/keys", StandardCharsets.UTF_8));
              assertThat(page.raw().body()).doesNotContain(operator[1]);
              page.json()
                  .get("items")
                  .forEach(
                      e -> {
                        if (e.get("target").asText().equals(operator[0])) {
                          found.add(e);
                        }
                      });
              assertThat(found).hasSize(1);
            });
    assertThat(row(found.get(0))).isEqualTo("POST /api/v1/keys | " + operator[0] + " | 201 | -");
    Jdbi jdbi = FIXTURE.stores.database().jdbi();
    long withSecret =
        jdbi.withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM audit_log a WHERE CAST(a AS text) LIKE :s")
                    .bind("s", "%" + operator[1].substring(12) + "%")
                    .mapTo(Long.class)
                    .one());
    assertThat(withSecret).isZero();

    Reply refused = FIXTURE.http().key(operator[1]).get("/api/v1/audit");
    assertThat(refused.status()).isEqualTo(403);
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
