package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.store.stats.StatsReader;
import io.punctual.store.stats.StatsReader.GroupBy;
import io.punctual.store.stats.StatsRollup;
import io.punctual.store.testing.StatsGroups;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Statistics on a known data set: in namespace stats-a, four attempts of type report (three succeed
 * in 10 ms, one fails in 100 ms, each started 50 ms after its job's scheduled time), one of type
 * mail (succeeds in 1,000 ms, started 500 ms late) and one report attempt still running; in stats-b
 * one more success. All in one minute, M.
 */
class StatsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static final Jobs JOBS = new Jobs(FIXTURE);

  static Instant minute;
  static StatsRollup.Pass pass;

  @BeforeAll
  static void knownDataSet() {
    minute = FIXTURE.clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(2));
    FIXTURE.clock.set(minute.plusSeconds(1));
    HttpSupport a = FIXTURE.http().namespace("stats-a");
    for (int i = 0; i < 3; i++) {
      attempt(a, "report", 50, 10, JobState.SUCCEEDED);
    }
    attempt(a, "report", 50, 100, JobState.FAILED);
    attempt(a, "mail", 500, 1000, JobState.SUCCEEDED);
    JOBS.claim(JOBS.submit(a, "{\"type\":\"report\"}")); // running: started, not ended
    attempt(FIXTURE.http().namespace("stats-b"), "report", 0, 10, JobState.SUCCEEDED);
    FIXTURE.clock.advance(Duration.ofSeconds(10));
    pass = rollup().runOnce();
  }

  /** One attempt started {@code lagMs} after its job's scheduled time, ended {@code ms} later. */
  private static void attempt(HttpSupport http, String type, long lagMs, long ms, JobState end) {
    String id = JOBS.submit(http, "{\"type\":\"" + type + "\",\"maxAttempts\":1}");
    FIXTURE.clock.advance(Duration.ofMillis(lagMs + ms));
    int attempt = JOBS.claim(id);
    Completion c =
        new Completion(
            UUID.fromString(id),
            attempt,
            end,
            null,
            end == JobState.SUCCEEDED ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED,
            FIXTURE.clock.instant(),
            ms,
            end == JobState.SUCCEEDED ? null : "boom",
            null,
            null,
            List.of());
    assertThat(FIXTURE.stack.transitions.finish(List.of(c)).applied()).hasSize(1);
  }

  private static StatsRollup rollup() {
    return new StatsRollup(
        FIXTURE.stack.database.jdbi(),
        FIXTURE.clock,
        Duration.ofMinutes(2),
        Duration.ofHours(1),
        Duration.ofDays(90));
  }

  @Test
  void byTypeCountsOutcomesAndReadsPercentilesWithinABucket() {
    JsonNode stats = stats(FIXTURE.http().namespace("stats-a"), "type");

    assertThat(stats.get("groupBy").asText()).isEqualTo("type");
    Instant to = minute.plus(Duration.ofMinutes(1));
    assertThat(stats.get("to").asText()).isEqualTo(to.toString());
    assertThat(stats.get("from").asText()).isEqualTo(to.minus(Duration.ofDays(1)).toString());
    JsonNode groups = stats.get("groups");
    assertThat(groups).hasSize(2);
    JsonNode mail = groups.get(0);
    JsonNode report = groups.get(1);
    assertThat(mail.get("key").asText()).isEqualTo("mail");
    assertThat(report.get("key").asText()).isEqualTo("report");
    assertThat(report.get("counts").get("SUCCEEDED").asLong()).isEqualTo(3);
    assertThat(report.get("counts").get("FAILED").asLong()).isEqualTo(1);
    assertThat(report.get("counts").get("STARTED").asLong()).isEqualTo(5);
    assertThat(report.get("successRate").asDouble()).isEqualTo(0.75);
    assertThat(report.get("durationMs").get("p50").asLong()).isBetween(9L, 11L);
    assertThat(report.get("durationMs").get("p95").asLong()).isBetween(84L, 119L);
    assertThat(report.get("startLagMs").get("p50").asLong()).isBetween(42L, 59L);
    assertThat(mail.get("counts").get("SUCCEEDED").asLong()).isEqualTo(1);
    assertThat(mail.get("successRate").asDouble()).isEqualTo(1.0);
    assertThat(mail.get("durationMs").get("p95").asLong()).isBetween(840L, 1190L);
    assertThat(mail.get("startLagMs").get("p50").asLong()).isBetween(420L, 595L);
  }

  @Test
  void byHourAndTheSeriesCoverTheMinute() {
    HttpSupport a = FIXTURE.http().namespace("stats-a");
    JsonNode hour = stats(a, "hour");
    assertThat(hour.get("groups")).hasSize(1);
    assertThat(hour.get("groups").get(0).get("key").asText())
        .isEqualTo(minute.truncatedTo(ChronoUnit.HOURS).toString());
    assertThat(hour.get("groups").get(0).get("counts").get("SUCCEEDED").asLong()).isEqualTo(4);

    Reply series = a.get("/api/v1/stats/series");
    assertThat(series.status()).as(series.raw().body()).isEqualTo(200);
    JsonNode points = series.json().get("points");
    assertThat(points).hasSize(1);
    assertThat(points.get(0).get("minute").asText()).isEqualTo(minute.toString());
    assertThat(points.get(0).get("started").asLong()).isEqualTo(6);
    assertThat(points.get(0).get("succeeded").asLong()).isEqualTo(4);
    assertThat(points.get(0).get("failed").asLong()).isEqualTo(1);
  }

  @Test
  void byNamespaceListsOnlyTheNamespacesOfTheKey() {
    JsonNode all = stats(FIXTURE.http(), "namespace");
    assertThat(all.get("groups"))
        .extracting(g -> g.get("key").asText())
        .containsExactly("stats-a", "stats-b");

    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"stats viewer\",\"role\":\"viewer\",\"namespaces\":[\"stats-a\"]}");
    assertThat(created.status()).isEqualTo(201);
    HttpSupport viewer =
        FIXTURE.http().key(created.json().get("secret").asText()).namespace("stats-a");
    assertThat(stats(viewer, "namespace").get("groups"))
        .extracting(g -> g.get("key").asText())
        .containsExactly("stats-a");
    JsonNode b = stats(FIXTURE.http().namespace("stats-b"), "type");
    assertThat(b.get("groups")).hasSize(1);
    assertThat(b.get("groups").get(0).get("counts").get("SUCCEEDED").asLong()).isEqualTo(1);
  }

  @Test
  void anotherPassOverTheSameMinutesChangesNothing() {
    assertThat(pass.rows()).isEqualTo(3); // stats-a report and mail, stats-b report
    StatsRollup.Pass again = rollup().runOnce();
    assertThat(again.to()).isAfterOrEqualTo(pass.to());
    JsonNode stats = stats(FIXTURE.http().namespace("stats-a"), "type");
    assertThat(stats.get("groups").get(1).get("counts").get("SUCCEEDED").asLong()).isEqualTo(3);
  }

  /**
   * Blocks of minutes the rollup no longer rewrites are kept by the reader: a second read answers
   * from them (a row changed behind its back is not seen), and reads of ranges that cut blocks
   * answer as a reader with nothing kept does. Rows three days old, one per minute, one attempt
   * started in each.
   */
  @Test
  void keptBlocksAnswerAsTheTableDoes() {
    Instant old = minute.minus(Duration.ofDays(3)).truncatedTo(ChronoUnit.HOURS);
    FIXTURE
        .stack
        .database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "INSERT INTO job_stats_minutes (minute, namespace, type, started,"
                            + " succeeded, duration_ms, start_lag_ms)"
                            + " SELECT CAST(:old AS timestamptz) + g * interval '1 minute',"
                            + " 'stats-kept', 'report', 1, 1, '{0,1}', '{1}'"
                            + " FROM generate_series(-60, 59) g")
                    .bind("old", old)
                    .execute());
    StatsReader reader = new StatsReader(FIXTURE.stack.database.jdbi());
    List<String> ns = List.of("stats-kept");
    Instant from = old.minus(Duration.ofMinutes(25)).plusSeconds(30);
    Instant to = old.plus(Duration.ofMinutes(17));
    // minutes old-24 .. old+16: 41 of them
    assertThat(StatsGroups.started(reader.groups(ns, from, to, GroupBy.TYPE))).isEqualTo(41);
    assertThat(StatsGroups.started(reader.groups(ns, from, to, GroupBy.TYPE))).isEqualTo(41);
    for (GroupBy by : GroupBy.values()) {
      Instant f = old.minus(Duration.ofMinutes(43)).plusMillis(1);
      Instant t = old.plus(Duration.ofMinutes(51)).plusSeconds(7);
      assertThat(StatsGroups.text(reader.groups(ns, f, t, by)))
          .as(by.name())
          .isEqualTo(
              StatsGroups.text(
                  new StatsReader(FIXTURE.stack.database.jdbi()).groups(ns, f, t, by)));
    }

    FIXTURE
        .stack
        .database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "UPDATE job_stats_minutes SET started = 100 WHERE namespace = 'stats-kept'"
                            + " AND minute = :old")
                    .bind("old", old)
                    .execute());
    assertThat(StatsGroups.started(reader.groups(ns, from, to, GroupBy.TYPE))).isEqualTo(41);
    assertThat(
            StatsGroups.started(
                new StatsReader(FIXTURE.stack.database.jdbi()).groups(ns, from, to, GroupBy.TYPE)))
        .isEqualTo(140);
  }

  @Test
  void badParametersAre400NamingThem() {
    String[][] cases = {
      {"/api/v1/stats?groupBy=week", "groupBy"},
      {"/api/v1/stats?from=yesterday", "from"},
      {"/api/v1/stats?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", "from"},
      {"/api/v1/stats?from=2030-01-01T00:00:00Z&to=2030-03-01T00:00:00Z", "to"},
      {"/api/v1/stats/series?from=2030-01-01T00:00:00Z&to=2030-01-09T00:00:00Z", "to"},
    };
    for (String[] c : cases) {
      Reply reply = FIXTURE.http().get(c[0]);
      assertThat(reply.status()).as(c[0]).isEqualTo(400);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("field").asText()).as(c[0]).isEqualTo(c[1]);
    }
  }

  private static JsonNode stats(HttpSupport http, String groupBy) {
    Reply reply = http.get("/api/v1/stats?groupBy=" + groupBy);
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    return reply.json();
  }
}
