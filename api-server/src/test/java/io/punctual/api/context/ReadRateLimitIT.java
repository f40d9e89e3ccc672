package io.punctual.api.context;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code api.readsPerSecondPerKey}: a token bucket per key in the API process (here 5 a second,
 * bursts of 10), moved by the test clock.
 */
class ReadRateLimitIT {
  static final ApiFixture FIXTURE = ApiFixture.start(settings());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static ApiSettings settings() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.readsPerSecondPerKey = 5;
    return settings;
  }

  private static HttpSupport as(String name, String role) {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"" + name + "\",\"role\":\"" + role + "\",\"namespaces\":[\"*\"]}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    return FIXTURE.http().key(created.json().get("secret").asText());
  }

  @Test
  void aKeyReadsItsBurstThenGets429WithRetryAfterAndRateLimitHeaders() {
    HttpSupport reader = as("reader", "viewer");
    for (int i = 0; i < 10; i++) {
      Reply read = reader.get("/api/v1/me");

      assertThat(read.status()).as("read " + i).isEqualTo(200);
      assertThat(read.header("RateLimit-Policy")).hasValue("\"reads\";q=10;w=2");
      String left = "\"reads\";r=" + (9 - i) + ";t=";
      assertThat(read.header("RateLimit").orElseThrow()).startsWith(left);
    }

    Reply refused = reader.get("/api/v1/jobs");

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.json().get("type").asText()).endsWith("/read-rate-exceeded");
    assertThat(refused.json().get("field").asText()).isEqualTo("Authorization");
    assertThat(refused.json().get("detail").asText()).contains("api.readsPerSecondPerKey");
    assertThat(refused.header("Retry-After")).hasValue("1");
    assertThat(refused.header("RateLimit-Policy")).hasValue("\"reads\";q=10;w=2");
    assertThat(refused.header("RateLimit")).hasValue("\"reads\";r=0;t=1");
    assertThat(FIXTURE.app.getEnvironment().metrics().meter("punctual.api.readsLimited").getCount())
        .isPositive();

    // a second later, five more (the rate), and no more
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 5; i++) {
      assertThat(reader.get("/api/v1/me").status()).as("read " + i).isEqualTo(200);
    }
    assertThat(reader.get("/api/v1/me").status()).isEqualTo(429);
  }

  @Test
  void eachKeyHasItsOwnBucketAndWritesAreNotCounted() {
    HttpSupport busy = as("busy", "submitter");
    HttpSupport quiet = as("quiet", "viewer");
    for (int i = 0; i < 10; i++) {
      assertThat(busy.get("/api/v1/me").status()).isEqualTo(200);
    }
    assertThat(busy.get("/api/v1/me").status()).isEqualTo(429);

    assertThat(quiet.get("/api/v1/me").status()).isEqualTo(200);
    Reply submit = busy.post("/api/v1/jobs", "{\"type\":\"noop\"}");
    assertThat(submit.status()).as(submit.raw().body()).isEqualTo(201);
    assertThat(submit.header("RateLimit-Policy")).isEmpty();
  }

  @Test
  void aRefusedOrForbiddenReadSpendsNothing() {
    HttpSupport viewer = as("forbidden-reader", "viewer");
    for (int i = 0; i < 20; i++) {
      assertThat(viewer.get("/api/v1/keys").status()).isEqualTo(403); // admin only
      assertThat(FIXTURE.http().key("pct_no-such-key-0123456789").get("/api/v1/me").status())
          .isEqualTo(401);
    }

    assertThat(viewer.get("/api/v1/me").status()).isEqualTo(200);
  }
}
