package io.punctual.api.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Priority;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Planner;
import io.punctual.planner.plan.PlannerWiring;
import java.net.http.HttpRequest;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /api/v1/schedules} end to end in-process, with a planner run by hand against the API's
 * stores.
 */
class SchedulesIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static HttpSupport http(String namespace) {
    return FIXTURE.http().namespace(namespace);
  }

  private static Planner planner() {
    return PlannerWiring.planner(FIXTURE.stores, new PlannerSettings(), new MetricRegistry());
  }

  private static JsonNode created(Reply reply) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    return reply.json();
  }

  private static Reply put(HttpSupport http, String path, String body) {
    return http.send(
        http.request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void aWeekdayScheduleInParisIsStoredWithItsDefaultsAndPreviewedAcrossTheChange() {
    HttpSupport http = http("sched-paris");
    JsonNode schedule =
        created(
            http.post(
                "/api/v1/schedules",
                """
                {"name":"morning-report","cron":"0 9 * * MON-FRI","timezone":"Europe/Paris",
                 "type":"report.build","payload":{"report":"daily"},"priority":"high",
                 "maxAttempts":5,"timeout":"PT10M","tags":["reports"]}"""));

    String id = schedule.get("id").asText();
    assertThat(schedule.get("namespace").asText()).isEqualTo("sched-paris");
    assertThat(schedule.get("cron").asText()).isEqualTo("0 9 * * MON-FRI");
    assertThat(schedule.get("every").isNull()).isTrue();
    assertThat(schedule.get("timezone").asText()).isEqualTo("Europe/Paris");
    assertThat(schedule.get("dst").get("gap").asText()).isEqualTo("shift");
    assertThat(schedule.get("dst").get("overlap").asText()).isEqualTo("first");
    assertThat(schedule.get("misfire").asText()).isEqualTo("fire_once");
    assertThat(schedule.get("overlap").asText()).isEqualTo("allow");
    assertThat(schedule.get("status").asText()).isEqualTo("ACTIVE");
    assertThat(schedule.get("priority").asText()).isEqualTo("high");
    assertThat(schedule.get("maxAttempts").asInt()).isEqualTo(5);
    assertThat(schedule.get("timeout").asText()).isEqualTo("PT10M");
    assertThat(schedule.get("backoff").get("strategy").asText()).isEqualTo("exponential");
    assertThat(schedule.get("nextFireAt").asText()).endsWith("Z");
    assertThat(schedule.get("lastFireAt").isNull()).isTrue();
    assertThat(http.get("/api/v1/schedules/" + id).json()).isEqualTo(schedule);

    // Paris moves to summer time on Sunday 2030-03-31: 09:00 is 08:00Z, then 07:00Z.
    Reply preview =
        http.get("/api/v1/schedules/" + id + "/preview?count=3&from=2030-03-29T00:00:00Z");
    assertThat(preview.status()).isEqualTo(200);
    assertThat(texts(preview.json().get("fireTimes")))
        .containsExactly("2030-03-29T08:00:00Z", "2030-04-01T07:00:00Z", "2030-04-02T07:00:00Z");

    // Without from: from the API's clock, not the machine's. The test clock is moved three and a
    // half days ahead of the machine's for this, so the two cannot be mistaken for each other.
    Instant before = FIXTURE.clock.instant();
    try {
      FIXTURE.clock.advance(Duration.ofHours(84));
      Instant now = FIXTURE.clock.instant();
      List<String> fireTimes =
          texts(http.get("/api/v1/schedules/" + id + "/preview").json().get("fireTimes"));

      assertThat(fireTimes).hasSize(10);
      assertThat(Instant.parse(fireTimes.get(0))).isAfterOrEqualTo(now);
      assertThat(fireTimes).isEqualTo(weekdayNinesInParis(now, 10));
    } finally {
      FIXTURE.clock.set(before);
    }
  }

  /** The first {@code n} times at or after {@code from} that are 09:00 on a weekday in Paris. */
  private static List<String> weekdayNinesInParis(Instant from, int n) {
    ZoneId paris = ZoneId.of("Europe/Paris");
    List<String> out = new ArrayList<>();
    for (LocalDate day = LocalDate.ofInstant(from, paris); out.size() < n; day = day.plusDays(1)) {
      Instant nine = day.atTime(9, 0).atZone(paris).toInstant();
      boolean weekday =
          day.getDayOfWeek() != DayOfWeek.SATURDAY && day.getDayOfWeek() != DayOfWeek.SUNDAY;
      if (weekday && !nine.isBefore(from)) {
        out.add(nine.toString());
      }
    }
    return out;
  }

  @Test
  void aWeeklyIntervalFiresEverySevenDays() {
    HttpSupport http = http("sched-weekly");
    JsonNode schedule =
        created(
            http.post(
                "/api/v1/schedules",
                "{\"name\":\"w\",\"every\":\"P1W\",\"startAt\":\"2030-01-07T06:00:00Z\","
                    + "\"type\":\"noop\"}"));

    assertThat(schedule.get("every").asText()).isEqualTo("PT168H");
    Reply preview =
        http.get(
            "/api/v1/schedules/"
                + schedule.get("id").asText()
                + "/preview?count=3&from=2030-01-01T00:00:00Z");
    assertThat(texts(preview.json().get("fireTimes")))
        .containsExactly("2030-01-07T06:00:00Z", "2030-01-14T06:00:00Z", "2030-01-21T06:00:00Z");
  }

  @Test
  void listsByNameWithACursor() {
    HttpSupport http = http("sched-list");
    for (String name : List.of("c", "a", "b")) {
      created(
          http.post(
              "/api/v1/schedules",
              "{\"name\":\"" + name + "\",\"every\":\"PT1M\",\"type\":\"noop\"}"));
    }

    Reply first = http.get("/api/v1/schedules?limit=2");
    assertThat(first.json().get("items").findValuesAsText("name")).containsExactly("a", "b");
    String cursor = first.json().get("nextCursor").asText();
    Reply second = http.get("/api/v1/schedules?limit=2&cursor=" + cursor);
    assertThat(second.json().get("items").findValuesAsText("name")).containsExactly("c");
    assertThat(second.json().get("nextCursor").isNull()).isTrue();
    assertThat(http.get("/api/v1/schedules?status=paused").json().get("items")).isEmpty();
    assertThat(http.get("/api/v1/schedules?status=sleeping").status()).isEqualTo(400);
  }

  @Test
  void theSameNameTwiceIsAConflict() {
    HttpSupport http = http("sched-conflict");
    String body = "{\"name\":\"n\",\"every\":\"PT1M\",\"type\":\"noop\"}";
    created(http.post("/api/v1/schedules", body));

    Reply again = http.post("/api/v1/schedules", body);

    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("type").asText()).endsWith("/schedule-name-taken");
    assertThat(again.json().get("field").asText()).isEqualTo("name");
    // Another namespace may use it.
    created(http("sched-conflict-2").post("/api/v1/schedules", body));
  }

  @Test
  void anInitIdentifierRegistersOnceAndUpdatesInPlace() {
    HttpSupport http = http("sched-init");
    String body =
        "{\"name\":\"cleanup\",\"initIdentifier\":\"svc.cleanup\",\"cron\":\"0 * * * *\","
            + "\"type\":\"cleanup\"}";

    JsonNode first = created(http.post("/api/v1/schedules", body));
    Reply repeat = http.post("/api/v1/schedules", body);
    Reply changed = http.post("/api/v1/schedules", body.replace("0 * * * *", "30 * * * *"));

    assertThat(repeat.status()).isEqualTo(200);
    assertThat(repeat.json().get("id")).isEqualTo(first.get("id"));
    assertThat(changed.status()).isEqualTo(200);
    assertThat(changed.json().get("id")).isEqualTo(first.get("id"));
    assertThat(changed.json().get("cron").asText()).isEqualTo("30 * * * *");
    assertThat(http.get("/api/v1/schedules").json().get("items")).hasSize(1);
  }

  @Test
  void pauseCancelsMaterialisedJobsResumeAndTriggerRunThemAgain() {
    HttpSupport http = http("sched-pause");
    String id =
        created(
                http.post(
                    "/api/v1/schedules",
                    "{\"name\":\"tick\",\"every\":\"PT10S\",\"type\":\"noop\"}"))
            .get("id")
            .asText();
    planner().runOnce();
    JsonNode pending = http.get("/api/v1/schedules/" + id + "/jobs?status=PENDING").json();
    assertThat(pending.get("items").size()).isGreaterThanOrEqualTo(6);
    JsonNode job = pending.get("items").get(0);
    assertThat(job.get("scheduleId").asText()).isEqualTo(id);
    assertThat(job.get("occurrenceAt").asText()).isEqualTo(job.get("runAt").asText());
    String futureJob = job.get("id").asText(); // newest first: the furthest ahead
    String queue = FIXTURE.stack.keys.queue("sched-pause", Priority.NORMAL);
    assertThat(FIXTURE.stack.redis.sync().zscore(queue, futureJob)).isNotNull();

    FIXTURE.clock.advance(Duration.ofMillis(1));
    Reply paused = http.post("/api/v1/schedules/" + id + "/pause", "");
    assertThat(paused.status()).isEqualTo(200);
    assertThat(paused.json().get("status").asText()).isEqualTo("PAUSED");
    assertThat(paused.json().get("nextFireAt").isNull()).isTrue();
    assertThat(http.get("/api/v1/jobs/" + futureJob).json().get("status").asText())
        .isEqualTo("CANCELLED");
    assertThat(FIXTURE.stack.redis.sync().zscore(queue, futureJob)).isNull();
    assertThat(planner().runOnce().jobs()).isZero();

    Reply resumed = http.post("/api/v1/schedules/" + id + "/resume", "");
    assertThat(resumed.json().get("status").asText()).isEqualTo("ACTIVE");
    assertThat(planner().runOnce().jobs()).isPositive();

    Reply triggered = http.post("/api/v1/schedules/" + id + "/trigger", "");
    assertThat(triggered.status()).isEqualTo(201);
    assertThat(triggered.json().get("scheduleId").asText()).isEqualTo(id);
    assertThat(triggered.json().get("occurrenceAt").isNull()).isTrue();
    assertThat(triggered.header("Location"))
        .hasValueSatisfying(l -> assertThat(l).contains("/api/v1/jobs/"));
    assertThat(FIXTURE.stack.redis.sync().zscore(queue, triggered.json().get("id").asText()))
        .isNotNull();
  }

  @Test
  void changingTheExpressionReplansAndDeletingCancels() {
    HttpSupport http = http("sched-put");
    // Half a second past a whole second, so every fire time below is known exactly.
    Instant created = FIXTURE.clock.instant().truncatedTo(ChronoUnit.SECONDS).plusMillis(1_500);
    FIXTURE.clock.set(created);
    String id =
        created(
                http.post(
                    "/api/v1/schedules", "{\"name\":\"p\",\"every\":\"PT10S\",\"type\":\"noop\"}"))
            .get("id")
            .asText();
    planner().runOnce();
    // Every 10 s from the creation rounded up (+0.5 s), within the minute's look-ahead.
    Instant first = created.plusMillis(500);
    List<JsonNode> old = jobsOf(http, id, "PENDING");
    assertThat(occurrences(old))
        .containsExactlyInAnyOrder(
            first,
            first.plusSeconds(10),
            first.plusSeconds(20),
            first.plusSeconds(30),
            first.plusSeconds(40),
            first.plusSeconds(50));
    FIXTURE.clock.advance(Duration.ofSeconds(1)); // the first fire time has come: its job stays

    Reply replaced =
        put(
            http,
            "/api/v1/schedules/" + id,
            "{\"name\":\"p\",\"cron\":\"*/30 * * * * ?\",\"type\":\"noop\",\"priority\":\"low\"}");
    Instant changedAt = FIXTURE.clock.instant();

    assertThat(replaced.status()).as(replaced.raw().body()).isEqualTo(200);
    assertThat(replaced.json().get("cron").asText()).isEqualTo("*/30 * * * * ?");
    assertThat(replaced.json().get("every").isNull()).isTrue();
    // Exactly the old jobs due after the change were cancelled; the one that had come was not.
    assertThat(ids(jobsOf(http, id, "CANCELLED")))
        .containsExactlyInAnyOrderElementsOf(
            ids(old.stream().filter(j -> occurrence(j).isAfter(changedAt)).toList()));
    assertThat(jobsOf(http, id, "CANCELLED"))
        .hasSize(5)
        .allSatisfy(
            j -> assertThat(j.get("lastError").asText()).isEqualTo("cancelled: schedule changed"));
    List<JsonNode> kept = jobsOf(http, id, "PENDING");
    assertThat(occurrences(kept)).containsExactly(first);

    planner().runOnce();

    // The new definition from the change on: every :00 and :30 within the look-ahead, low
    // priority, next to the kept job of the old one.
    List<Instant> halfMinutes = new ArrayList<>();
    for (Instant t = changedAt.truncatedTo(ChronoUnit.MINUTES);
        !t.isAfter(changedAt.plus(Duration.ofMinutes(1)));
        t = t.plusSeconds(30)) {
      if (!t.isBefore(changedAt)) {
        halfMinutes.add(t);
      }
    }
    List<JsonNode> pending = jobsOf(http, id, "PENDING");
    List<JsonNode> replanned =
        pending.stream().filter(j -> !j.get("id").equals(kept.get(0).get("id"))).toList();
    assertThat(pending).hasSize(1 + halfMinutes.size());
    assertThat(occurrences(replanned)).containsExactlyInAnyOrderElementsOf(halfMinutes);
    assertThat(replanned)
        .allSatisfy(
            j -> {
              assertThat(j.get("priority").asText()).isEqualTo("low");
              assertThat(j.get("runAt")).isEqualTo(j.get("occurrenceAt"));
            });
    assertThat(kept.get(0).get("priority").asText()).isEqualTo("normal");

    Reply deleted = http.method("DELETE", "/api/v1/schedules/" + id);
    assertThat(deleted.status()).isEqualTo(200);
    // The new jobs, all due later, are cancelled; the kept one, due already, is not.
    assertThat(deleted.json().get("cancelledJobs").asInt()).isEqualTo(halfMinutes.size());
    assertThat(
            http.get("/api/v1/jobs/" + kept.get(0).get("id").asText())
                .json()
                .get("status")
                .asText())
        .isEqualTo("PENDING");
    assertThat(http.get("/api/v1/schedules/" + id).status()).isEqualTo(404);
    assertThat(http.method("DELETE", "/api/v1/schedules/" + id).status()).isEqualTo(404);
  }

  private static List<JsonNode> jobsOf(HttpSupport http, String id, String status) {
    List<JsonNode> out = new ArrayList<>();
    http.get("/api/v1/schedules/" + id + "/jobs?status=" + status + "&limit=20")
        .json()
        .get("items")
        .forEach(out::add);
    return out;
  }

  private static Instant occurrence(JsonNode job) {
    return Instant.parse(job.get("occurrenceAt").asText());
  }

  private static List<Instant> occurrences(List<JsonNode> jobs) {
    return jobs.stream().map(SchedulesIT::occurrence).toList();
  }

  private static List<String> ids(List<JsonNode> jobs) {
    return jobs.stream().map(j -> j.get("id").asText()).toList();
  }

  @Test
  void schedulesOfAnotherNamespaceAreInvisible() {
    String id =
        created(
                http("sched-ns-a")
                    .post(
                        "/api/v1/schedules",
                        "{\"name\":\"x\",\"every\":\"PT1H\",\"type\":\"noop\"}"))
            .get("id")
            .asText();
    HttpSupport other = http("sched-ns-b");

    assertThat(other.get("/api/v1/schedules/" + id).status()).isEqualTo(404);
    assertThat(other.post("/api/v1/schedules/" + id + "/pause", "").status()).isEqualTo(404);
    assertThat(other.post("/api/v1/schedules/" + id + "/trigger", "").status()).isEqualTo(404);
    assertThat(other.get("/api/v1/schedules/" + id + "/jobs").status()).isEqualTo(404);
    assertThat(other.get("/api/v1/schedules/not-an-id").status()).isEqualTo(404);
    assertThat(other.get("/api/v1/schedules").json().get("items")).isEmpty();
  }

  @Test
  void badQueryParametersAre400sNamingThem() {
    HttpSupport http = http("sched-params");
    String id =
        created(
                http.post(
                    "/api/v1/schedules", "{\"name\":\"q\",\"every\":\"PT1H\",\"type\":\"noop\"}"))
            .get("id")
            .asText();

    Reply count = http.get("/api/v1/schedules/" + id + "/preview?count=0");
    Reply from = http.get("/api/v1/schedules/" + id + "/preview?from=yesterday");
    Reply status = http.get("/api/v1/schedules/" + id + "/jobs?status=DONE");

    assertThat(count.status()).isEqualTo(400);
    assertThat(count.json().get("field").asText()).isEqualTo("count");
    assertThat(from.status()).isEqualTo(400);
    assertThat(from.json().get("field").asText()).isEqualTo("from");
    assertThat(status.status()).isEqualTo(400);
    assertThat(status.json().get("field").asText()).isEqualTo("status");
  }
}
