package io.punctual.api.outage;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.embedded.FreePorts;
import io.punctual.store.config.PostgresSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With PostgreSQL unreachable the API answers 503 with Retry-After, not 500. */
class PostgresOutageIT {
  static final ApiFixture FIXTURE = ApiFixture.withPostgres(unreachable());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static PostgresSettings unreachable() {
    PostgresSettings settings =
        new PostgresSettings(
            "jdbc:postgresql://127.0.0.1:" + FreePorts.pick() + "/punctual", "postgres", "");
    settings.connectionTimeout = Duration.ofMillis(300);
    settings.maxPoolSize = 2;
    return settings;
  }

  @Test
  void readsAndWritesAre503WithRetryAfter() {
    Reply read = FIXTURE.http().get("/api/v1/jobs/019a0000-0000-7000-8000-000000000000");
    Reply write = FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\",\"delay\":\"PT1H\"}");

    for (Reply reply : new Reply[] {read, write}) {
      assertThat(reply.status()).as(reply.raw().body()).isEqualTo(503);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("type").asText()).endsWith("/unavailable");
      assertThat(reply.header("Retry-After")).hasValue("5");
    }
  }

  @Test
  void theHealthCheckReportsPostgres() {
    Reply health = FIXTURE.adminHttp().get("/healthcheck");

    assertThat(health.status()).isEqualTo(500);
    assertThat(health.json().get("postgres").get("healthy").asBoolean()).isFalse();
    assertThat(health.json().get("redis").get("healthy").asBoolean()).isTrue();
  }
}
