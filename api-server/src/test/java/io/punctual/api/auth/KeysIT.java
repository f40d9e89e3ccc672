package io.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.AuthSettings;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** API keys: created once with their secret, listed without it, rotated, revoked, expired. */
public class KeysIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  /** Creates a key as the admin and answers its secret. */
  public static String createKey(ApiFixture fixture, String name, String role, String namespaces) {
    Reply created =
        fixture
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
    return created.json().get("secret").asText();
  }

  private static HttpSupport as(String key) {
    return FIXTURE.http().key(key);
  }

  @Test
  void aKeyIsAnsweredOnceAndListedWithoutItsSecret() {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"billing service\",\"role\":\"submitter\",\"namespaces\":[\"billing\"]}");

    assertThat(created.status()).isEqualTo(201);
    String id = created.json().get("id").asText();
    String secret = created.json().get("secret").asText();
    assertThat(created.header("Location")).hasValueSatisfying(l -> assertThat(l).endsWith(id));
    assertThat(secret).startsWith("pct_").hasSize(4 + 43);
    assertThat(created.json().get("prefix").asText()).isEqualTo(secret.substring(0, 12));
    assertThat(created.json().get("role").asText()).isEqualTo("submitter");

    List<Reply> pages = allKeyPages();
    for (Reply page : pages) {
      assertThat(page.status()).isEqualTo(200);
      assertThat(page.raw().body()).doesNotContain(secret).doesNotContain("secret");
    }
    JsonNode mine = find(pages, id);
    assertThat(mine.get("name").asText()).isEqualTo("billing service");
    assertThat(mine.get("namespaces").get(0).asText()).isEqualTo("billing");
    assertThat(mine.has("lastUsedAt")).isTrue();
    assertThat(mine.get("lastUsedAt").isNull()).isTrue();

    Reply one = FIXTURE.http().get("/api/v1/keys/" + id);
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.json().has("secret")).isFalse();

    // Used once: lastUsedAt is recorded.
    assertThat(as(secret).namespace("billing").get("/api/v1/jobs").status()).isEqualTo(200);
    Reply used = FIXTURE.http().get("/api/v1/keys/" + id);
    assertThat(used.json().get("lastUsedAt").isNull()).isFalse();
  }

  @Test
  void withoutAValidKeyEveryRequestIsA401ProblemWithWwwAuthenticate() {
    List<Reply> replies = new ArrayList<>();
    replies.add(FIXTURE.http().key(null).get("/api/v1/jobs"));
    replies.add(FIXTURE.http().key(null).post("/api/v1/jobs", "{\"type\":\"noop\"}"));
    replies.add(FIXTURE.http().key("pct_" + "A".repeat(43)).get("/api/v1/jobs"));
    replies.add(FIXTURE.http().key(ApiFixture.ADMIN_KEY + "x").get("/api/v1/jobs"));
    replies.add(
        FIXTURE
            .http()
            .key(null)
            .send(
                FIXTURE
                    .http()
                    .key(null)
                    .request("/api/v1/jobs")
                    .header("Authorization", "Basic YTpi")));
    for (Reply reply : replies) {
      assertThat(reply.status()).as(reply.raw().body()).isEqualTo(401);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.header("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer realm=\"punctual\""));
      assertThat(reply.raw().body()).doesNotContain(ApiFixture.ADMIN_KEY);
    }
    assertThat(replies.get(0).header("WWW-Authenticate").orElseThrow())
        .doesNotContain("invalid_token");
    assertThat(replies.get(2).header("WWW-Authenticate").orElseThrow())
        .contains("error=\"invalid_token\"");
  }

  @Test
  void rotationTwoKeysWorkUntilTheOldOneIsRevokedWhichStopsAtOnce() {
    String old = createKey(FIXTURE, "reports v1", "operator", "[\"reports\"]");
    String fresh = createKey(FIXTURE, "reports v2", "operator", "[\"reports\"]");
    assertThat(as(old).get("/api/v1/jobs").status()).isEqualTo(200);
    assertThat(as(fresh).get("/api/v1/jobs").status()).isEqualTo(200);

    String oldId = idOf(old);
    assertThat(FIXTURE.http().method("DELETE", "/api/v1/keys/" + oldId).status()).isEqualTo(204);

    assertThat(as(old).get("/api/v1/jobs").status()).isEqualTo(401); // cached, yet refused at once
    assertThat(as(fresh).get("/api/v1/jobs").status()).isEqualTo(200);
    assertThat(FIXTURE.http().method("DELETE", "/api/v1/keys/" + oldId).status()).isEqualTo(404);
    assertThat(FIXTURE.http().get("/api/v1/keys/" + oldId).status()).isEqualTo(404);
  }

  @Test
  void anotherServerStopsAcceptingARevokedKeyWithinCacheFor() {
    String secret = createKey(FIXTURE, "elsewhere", "viewer", "[\"*\"]");
    ApiKeys keys = new ApiKeys(FIXTURE.stores.database().jdbi(), FIXTURE.clock);
    Duration cacheFor = Duration.ofSeconds(5);
    AuthSettings settings = new AuthSettings();
    settings.cacheFor = cacheFor;
    KeyAuthenticator otherServer =
        new KeyAuthenticator(keys, FIXTURE.clock, settings, new MetricRegistry());
    assertThat(otherServer.authenticate("Bearer " + secret).role()).isEqualTo(Role.VIEWER);

    assertThat(FIXTURE.http().method("DELETE", "/api/v1/keys/" + idOf(secret)).status())
        .isEqualTo(204);

    FIXTURE.clock.advance(cacheFor.minusMillis(1));
    assertThat(otherServer.authenticate("Bearer " + secret).role()).isEqualTo(Role.VIEWER);
    FIXTURE.clock.advance(Duration.ofMillis(1));
    assertThat(refusal(otherServer, "Bearer " + secret)).isEqualTo(401);
  }

  @Test
  void randomKeysCostOneReadOfThePrefixesPerPeriodNotOneReadEach() {
    MetricRegistry metrics = new MetricRegistry();
    KeyAuthenticator otherServer = otherServer(new AuthSettings(), metrics);

    for (int i = 0; i < 500; i++) {
      assertThat(refusal(otherServer, "Bearer " + KeySecrets.generate())).isEqualTo(401);
    }

    assertThat(metrics.meter("punctual.auth.prefixReads").getCount()).isEqualTo(1);
    assertThat(metrics.meter("punctual.auth.keyReads").getCount()).isZero();
    assertThat(metrics.meter("punctual.auth.refusedUnread").getCount()).isEqualTo(500);
    FIXTURE.clock.advance(UNKNOWN_KEYS_FOR);
    assertThat(refusal(otherServer, "Bearer " + KeySecrets.generate())).isEqualTo(401);
    assertThat(metrics.meter("punctual.auth.prefixReads").getCount()).isEqualTo(2);
    // a key that exists is still read (and cached) as before
    assertThat(otherServer.authenticate("Bearer " + ApiFixture.ADMIN_KEY).role())
        .isEqualTo(Role.ADMIN);
    assertThat(metrics.meter("punctual.auth.keyReads").getCount()).isEqualTo(1);
  }

  @Test
  void aRefusedKeyIsReadOncePerPeriodWhateverItsPrefix() {
    MetricRegistry metrics = new MetricRegistry();
    KeyAuthenticator otherServer = otherServer(new AuthSettings(), metrics);
    String real = createKey(FIXTURE, "prefix owner", "viewer", "[\"*\"]");
    // the prefix of a real key (public: listed, audited), the rest wrong
    String forged = real.substring(0, KeySecrets.PREFIX_LENGTH) + "x".repeat(43);

    for (int i = 0; i < 100; i++) {
      assertThat(refusal(otherServer, "Bearer " + forged)).isEqualTo(401);
    }

    assertThat(metrics.meter("punctual.auth.keyReads").getCount()).isEqualTo(1);
    FIXTURE.clock.advance(UNKNOWN_KEYS_FOR);
    assertThat(refusal(otherServer, "Bearer " + forged)).isEqualTo(401);
    assertThat(metrics.meter("punctual.auth.keyReads").getCount()).isEqualTo(2);
  }

  @Test
  void aKeyCreatedThroughThisServerWorksAtOnceRightAfterUnknownKeys() {
    // this server has just read the prefixes for an unknown key: they are fresh
    assertThat(as(KeySecrets.generate()).get("/api/v1/me").status()).isEqualTo(401);

    String secret = createKey(FIXTURE, "made here", "viewer", "[\"*\"]");

    assertThat(as(secret).get("/api/v1/me").status()).isEqualTo(200);
  }

  @Test
  void aKeyCreatedThroughAnotherServerWorksHereWithinUnknownKeysFor() {
    KeyAuthenticator otherServer = otherServer(new AuthSettings(), new MetricRegistry());
    assertThat(refusal(otherServer, "Bearer " + KeySecrets.generate())).isEqualTo(401);

    String secret = createKey(FIXTURE, "made elsewhere", "viewer", "[\"*\"]");

    // the documented bound: the other server read the prefixes before the key existed
    assertThat(refusal(otherServer, "Bearer " + secret)).isEqualTo(401);
    FIXTURE.clock.advance(UNKNOWN_KEYS_FOR);
    assertThat(otherServer.authenticate("Bearer " + secret).role()).isEqualTo(Role.VIEWER);
  }

  @Test
  void withUnknownKeysForZeroEveryUnknownKeyIsLookedUp() {
    AuthSettings settings = new AuthSettings();
    settings.unknownKeysFor = Duration.ZERO;
    MetricRegistry metrics = new MetricRegistry();
    KeyAuthenticator otherServer = otherServer(settings, metrics);

    for (int i = 0; i < 3; i++) {
      assertThat(refusal(otherServer, "Bearer " + KeySecrets.generate())).isEqualTo(401);
    }

    assertThat(metrics.meter("punctual.auth.keyReads").getCount()).isEqualTo(3);
    assertThat(metrics.meter("punctual.auth.prefixReads").getCount()).isZero();
  }

  @Test
  void anExpiredKeyIsRefusedEvenFromTheCache() {
    Instant expiresAt = FIXTURE.clock.instant().plusSeconds(60);
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"short\",\"role\":\"viewer\",\"namespaces\":[\"*\"],\"expiresAt\":\""
                    + expiresAt
                    + "\"}");
    assertThat(created.status()).isEqualTo(201);
    String secret = created.json().get("secret").asText();
    assertThat(as(secret).get("/api/v1/jobs").status()).isEqualTo(200);

    FIXTURE.clock.advance(Duration.ofSeconds(59));
    assertThat(as(secret).get("/api/v1/jobs").status()).isEqualTo(200);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    Reply expired = as(secret).get("/api/v1/jobs");
    assertThat(expired.status()).isEqualTo(401);
    assertThat(expired.json().get("detail").asText()).contains("expired");
  }

  @Test
  void onlyAdminsManageKeys() {
    String operator = createKey(FIXTURE, "ops", "operator", "[\"*\"]");
    assertThat(as(operator).get("/api/v1/keys").status()).isEqualTo(403);
    Reply escalation =
        as(operator)
            .post("/api/v1/keys", "{\"name\":\"me\",\"role\":\"admin\",\"namespaces\":[\"*\"]}");
    assertThat(escalation.status()).isEqualTo(403);
    assertThat(escalation.contentType()).startsWith("application/problem+json");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no name|{\"role\":\"viewer\",\"namespaces\":[\"*\"]}|name",
        "blank name|{\"name\":\" \",\"role\":\"viewer\",\"namespaces\":[\"*\"]}|name",
        "unknown role|{\"name\":\"a\",\"role\":\"root\",\"namespaces\":[\"*\"]}|role",
        "no namespaces|{\"name\":\"a\",\"role\":\"viewer\"}|namespaces",
        "empty namespaces|{\"name\":\"a\",\"role\":\"viewer\",\"namespaces\":[]}|namespaces",
        "bad namespace|{\"name\":\"a\",\"role\":\"viewer\",\"namespaces\":[\"a b\"]}|namespaces[0]",
        "star and more|{\"name\":\"a\",\"role\":\"viewer\",\"namespaces\":[\"*\",\"b\"]}|namespaces",
        "limited admin|{\"name\":\"a\",\"role\":\"admin\",\"namespaces\":[\"b\"]}|namespaces",
        "past expiry|{\"name\":\"a\",\"role\":\"viewer\",\"namespaces\":[\"*\"],\"expiresAt\":\"2001-01-01T00:00:00Z\"}|expiresAt",
        "unknown field|{\"name\":\"a\",\"role\":\"viewer\",\"namespaces\":[\"*\"],\"secret\":\"x\"}|secret",
        "nul in name|{\"name\":\"a\\u0000\",\"role\":\"viewer\",\"namespaces\":[\"*\"]}|name",
      })
  void aBadKeyRequestIsA422NamingTheField(String why, String body, String field) {
    Reply reply = FIXTURE.http().post("/api/v1/keys", body);

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("errors").findValuesAsText("field")).contains(field);
  }

  @Test
  void aKeyNeedsAnIdThatExists() {
    assertThat(FIXTURE.http().get("/api/v1/keys/not-a-uuid").status()).isEqualTo(404);
    assertThat(FIXTURE.http().method("DELETE", "/api/v1/keys/not-a-uuid").status()).isEqualTo(404);
    assertThat(FIXTURE.http().get("/api/v1/keys?cursor=nope").status()).isEqualTo(400);
  }

  private static final Duration UNKNOWN_KEYS_FOR = new AuthSettings().unknownKeysFor;

  /** An authenticator over the same keys, as another API server has one. */
  private static KeyAuthenticator otherServer(AuthSettings settings, MetricRegistry metrics) {
    return new KeyAuthenticator(
        new ApiKeys(FIXTURE.stores.database().jdbi(), FIXTURE.clock),
        FIXTURE.clock,
        settings,
        metrics);
  }

  private static int refusal(KeyAuthenticator authenticator, String header) {
    try {
      authenticator.authenticate(header);
      return 200;
    } catch (ProblemException e) {
      return e.problem().status();
    }
  }

  /** Every page of GET /api/v1/keys, following the cursors. */
  private static List<Reply> allKeyPages() {
    List<Reply> pages = new ArrayList<>();
    String cursor = null;
    do {
      Reply page =
          FIXTURE.http().get("/api/v1/keys?limit=3" + (cursor == null ? "" : "&cursor=" + cursor));
      pages.add(page);
      JsonNode next = page.json().get("nextCursor");
      cursor = next == null || next.isNull() ? null : next.asText();
    } while (cursor != null);
    return pages;
  }

  private static String idOf(String secret) {
    for (Reply page : allKeyPages()) {
      for (JsonNode item : page.json().get("items")) {
        if (item.get("prefix").asText().equals(secret.substring(0, 12))) {
          return item.get("id").asText();
        }
      }
    }
    throw new AssertionError("no key with the prefix of " + secret.substring(0, 12));
  }

  private static JsonNode find(List<Reply> pages, String id) {
    for (Reply page : pages) {
      for (JsonNode item : page.json().get("items")) {
        if (item.get("id").asText().equals(id)) {
          return item;
        }
      }
    }
    throw new AssertionError("no key " + id);
  }
}
