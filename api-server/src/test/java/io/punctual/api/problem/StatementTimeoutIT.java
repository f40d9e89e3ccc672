package io.punctual.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code api.statementTimeout}: every statement of the API's pool runs under it, and a request
 * whose statement it cancels (SQLSTATE 57014) is a 422 {@code query-too-broad} problem, never a
 * 5xx. A statement is made to outlast it by a lock a test session holds on the table it reads.
 */
class StatementTimeoutIT {
  static final ApiFixture FIXTURE = ApiFixture.start(settings());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static ApiSettings settings() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.statementTimeout = Duration.ofMillis(300);
    return settings;
  }

  @Test
  void theApisSessionsRunUnderTheTimeout() {
    String timeout =
        FIXTURE
            .stores
            .database()
            .jdbi()
            .withHandle(h -> h.select("SHOW statement_timeout").mapTo(String.class).one());

    assertThat(timeout).isEqualTo("300ms");
  }

  @Test
  void aListThatOutlastsItIs422QueryTooBroadNamingFrom() throws Exception {
    Reply reply = whileLocked("jobs", () -> FIXTURE.http().get("/api/v1/jobs?type=anything"));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith(Problem.MEDIA_TYPE);
    assertThat(reply.json().get("type").asText()).endsWith("/query-too-broad");
    assertThat(reply.json().get("field").asText()).isEqualTo("from");
    assertThat(reply.json().get("detail").asText()).contains("api.statementTimeout");
    // and once the lock is gone, the same request answers
    assertThat(FIXTURE.http().get("/api/v1/jobs?type=anything").status()).isEqualTo(200);
  }

  @Test
  void aBulkCountThatOutlastsItIs422NamingTheFiltersRange() throws Exception {
    Reply reply =
        whileLocked(
            "jobs",
            () ->
                FIXTURE
                    .http()
                    .post(
                        "/api/v1/jobs/bulk",
                        "{\"action\":\"cancel\",\"filter\":{\"type\":\"x\"},\"dryRun\":true}"));

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.json().get("field").asText()).isEqualTo("filter.from");
  }

  @Test
  void anyOtherRequestThatOutlastsItIs422NotA5xx() throws Exception {
    // the fast path of POST /jobs (outside Jersey) and a read by id
    Reply submit =
        whileLocked("jobs", () -> FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"noop\"}"));
    Reply byId =
        whileLocked(
            "jobs", () -> FIXTURE.http().get("/api/v1/jobs/0193a5b0-0000-7000-8000-000000000000"));

    for (Reply reply : new Reply[] {submit, byId}) {
      assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
      assertThat(reply.json().get("type").asText()).endsWith("/query-too-broad");
    }
  }

  /** What {@code request} answers while a test session holds an exclusive lock on {@code table}. */
  private static <T> T whileLocked(String table, Callable<T> request) throws Exception {
    return FIXTURE
        .stack
        .database
        .jdbi()
        .inTransaction(
            h -> {
              h.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
              return request.call();
            });
  }
}
