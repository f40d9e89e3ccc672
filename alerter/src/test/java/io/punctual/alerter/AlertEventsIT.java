package io.punctual.alerter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.alerter.Receiver.Received;
import io.punctual.common.json.Json;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.outbound.signing.WebhookSignature;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.alert.AlertDelivery;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.registry.WorkerRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each kind of event fires a signed notice, once per incident, and a resolved one when it clears.
 */
class AlertEventsIT {
  private final AlertFixture f = new AlertFixture();

  @AfterEach
  void close() {
    f.close();
  }

  private List<JsonNode> bodies() {
    return f.receiver.received().stream().map(r -> Json.readTree(r.body())).toList();
  }

  private static AlertRule.Draft draft(
      String name,
      AlertEvent event,
      String type,
      Integer count,
      Integer percent,
      Duration window,
      Duration threshold,
      String url) {
    return new AlertRule.Draft(
        name,
        event,
        type,
        null,
        count,
        percent,
        window,
        threshold,
        AlertRule.Channel.WEBHOOK,
        url,
        Duration.ZERO);
  }

  @Test
  void aFailedJobFiresOneSignedNoticePerIncidentAndAResolvedOneWhenQuiet() {
    AlertRule rule = f.rule("reports", AlertEvent.JOB_FAILED, "report");
    Job failed = f.fail("report");
    f.fail("other"); // another type: no rule matches
    f.succeed("other"); // not a failure, and no incident of its type to clear
    assertThat(f.count("SELECT count(*) FROM alert_events")).isEqualTo(1);

    Alerter.Pass pass = f.alerter.runOnce();
    assertThat(pass.folded()).isEqualTo(1);
    assertThat(pass.sent().sent()).isEqualTo(1);
    List<Received> got = f.receiver.received();
    assertThat(got).hasSize(1);
    Received firing = got.get(0);
    JsonNode body = Json.readTree(firing.body());
    assertThat(body.path("status").asText()).isEqualTo("firing");
    assertThat(body.path("rule").path("id").asText()).isEqualTo(rule.id().toString());
    assertThat(body.path("subject").asText()).isEqualTo("type:report");
    assertThat(body.path("detail").path("jobId").asText()).isEqualTo(failed.id().toString());
    assertThat(body.path("detail").path("error").asText()).isEqualTo("boom");
    assertThat(firing.header(WebhookSignature.ID)).isEqualTo(body.path("dedupKey").asText());
    assertThat(
            WebhookSignature.verify(
                f.secret,
                firing.header(WebhookSignature.ID),
                firing.header(WebhookSignature.TIMESTAMP),
                firing.header(WebhookSignature.SIGNATURE),
                firing.body(),
                f.clock.instant(),
                WebhookSignature.DEFAULT_TOLERANCE))
        .isTrue();
    assertThat(firing.header(WebhookSigner.NAMESPACE)).isEqualTo("default");
    assertThat(
            WebhookSignature.verify(
                f.otherSecret,
                firing.header(WebhookSignature.ID),
                firing.header(WebhookSignature.TIMESTAMP),
                firing.header(WebhookSignature.SIGNATURE),
                firing.body(),
                f.clock.instant(),
                WebhookSignature.DEFAULT_TOLERANCE))
        .as("namespace billing's secret")
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                "whsec_" + "A".repeat(40),
                firing.header(WebhookSignature.ID),
                firing.header(WebhookSignature.TIMESTAMP),
                firing.header(WebhookSignature.SIGNATURE),
                firing.body(),
                f.clock.instant(),
                WebhookSignature.DEFAULT_TOLERANCE))
        .as("another secret")
        .isFalse();

    // More failures of the same type count into the open incident: no second notice.
    f.fail("report");
    f.fail("report");
    f.alerter.runOnce();
    assertThat(f.receiver.received()).hasSize(1);

    // Quiet for alerts.resolveAfter: resolved, once.
    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce();
    f.alerter.runOnce();
    List<JsonNode> all = bodies();
    assertThat(all).hasSize(2);
    assertThat(all.get(1).path("status").asText()).isEqualTo("resolved");
    assertThat(all.get(1).path("incident").path("events").asInt()).isEqualTo(3);
    assertThat(all.get(1).path("incident").path("id").asText())
        .isEqualTo(all.get(0).path("incident").path("id").asText());

    List<AlertDelivery> deliveries = f.rules.deliveries(rule.id(), null, 10);
    assertThat(deliveries).extracting(AlertDelivery::status).containsExactly("sent", "sent");
    assertThat(deliveries).extracting(AlertDelivery::kind).containsExactly("resolved", "firing");
  }

  @Test
  void aTimedOutAttemptAndALongOneFireTheirRules() {
    f.rule("timeouts", AlertEvent.TIMED_OUT, null);
    f.rule(
        draft(
            "slow",
            AlertEvent.DURATION_OVER,
            "etl",
            null,
            null,
            null,
            Duration.ofSeconds(30),
            f.receiver.url("/slow")));
    Job quick = f.running("etl", 3, "w1");
    f.end(quick, JobState.SUCCEEDED, ExecutionStatus.SUCCEEDED, 10, null); // fires nothing
    Job timedOut = f.running("etl", 3, "w1");
    f.end(timedOut, JobState.PENDING, ExecutionStatus.TIMED_OUT, 60_000, "timed out");

    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("rule").path("event").asText())
        .containsExactlyInAnyOrder("timed_out", "duration_over");
    assertThat(f.find(timedOut).status()).isEqualTo(JobState.PENDING);
  }

  /** The statuses of the notices received, in order, as "event status". */
  private List<String> received() {
    return bodies().stream()
        .map(b -> b.path("rule").path("event").asText() + " " + b.path("status").asText())
        .toList();
  }

  @Test
  void failFailSucceedSendsOneAlertAndOneResolvedNoticeOnTheSuccess() {
    AlertRule rule = f.rule("reports", AlertEvent.JOB_FAILED, "report");
    f.fail("report");
    f.fail("report");
    f.alerter.runOnce();
    assertThat(received()).containsExactly("job_failed firing");

    f.succeed("other"); // another type: clears nothing, writes nothing
    assertThat(f.count("SELECT count(*) FROM alert_events")).isZero();
    Job success = f.succeed("report");
    assertThat(f.count("SELECT count(*) FROM alert_events WHERE recovery")).isEqualTo(1);
    // Long before alerts.resolveAfter: the success, not the quiet, resolves it.
    f.clock.advance(Duration.ofSeconds(1));
    f.alerter.runOnce();
    f.alerter.runOnce();
    assertThat(received()).containsExactly("job_failed firing", "job_failed resolved");
    JsonNode resolved = bodies().get(1);
    assertThat(resolved.path("incident").path("events").asInt()).isEqualTo(2);
    assertThat(resolved.path("recoveredBy").path("jobId").asText())
        .isEqualTo(success.id().toString());
    assertThat(resolved.path("incident").path("id").asText())
        .isEqualTo(bodies().get(0).path("incident").path("id").asText());
    assertThat(f.count("SELECT count(*) FROM alert_incidents")).isZero();

    // Further successes find nothing to clear: no outbox row, no notice.
    f.succeed("report");
    assertThat(f.count("SELECT count(*) FROM alert_events")).isZero();
    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce();
    assertThat(received()).hasSize(2);
    assertThat(f.rules.deliveries(rule.id(), null, 10))
        .extracting(AlertDelivery::kind, AlertDelivery::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("resolved", "sent"),
            org.assertj.core.groups.Tuple.tuple("firing", "sent"));

    // The next failure opens a new incident.
    f.fail("report");
    f.alerter.runOnce();
    assertThat(received())
        .containsExactly("job_failed firing", "job_failed resolved", "job_failed firing");
  }

  @Test
  void failFailSucceedBeforeTheAlerterRunsStillSendsOneOfEach() {
    f.rule("reports", AlertEvent.JOB_FAILED, "report");
    f.fail("report");
    f.fail("report");
    Job success = f.succeed("report"); // the failures are still in the outbox: a recovery row
    f.succeed("report"); // one recovery row per rule and type is enough
    assertThat(f.count("SELECT count(*) FROM alert_events WHERE recovery")).isEqualTo(1);
    f.alerter.runOnce();
    f.alerter.runOnce();
    assertThat(received()).containsExactly("job_failed firing", "job_failed resolved");
    assertThat(bodies().get(1).path("recoveredBy").path("jobId").asText())
        .isEqualTo(success.id().toString());
    assertThat(f.count("SELECT count(*) FROM alert_incidents")).isZero();
  }

  @Test
  void aTimedOutIncidentClearsOnASuccessAndADurationOneOnARunWithinTheThreshold() {
    f.rule("timeouts", AlertEvent.TIMED_OUT, "etl");
    f.rule(
        draft(
            "slow",
            AlertEvent.DURATION_OVER,
            "etl",
            null,
            null,
            null,
            Duration.ofSeconds(30),
            f.receiver.url("/slow")));
    Job timedOut = f.running("etl", 3, "w1");
    f.end(timedOut, JobState.PENDING, ExecutionStatus.TIMED_OUT, 60_000, "timed out");
    f.alerter.runOnce();
    assertThat(received()).containsExactlyInAnyOrder("timed_out firing", "duration_over firing");

    // A long success: no recovery of the duration rule (it is one more event of it), but a
    // success clears timed_out.
    Job slow = f.running("etl", 3, "w1");
    f.end(slow, JobState.SUCCEEDED, ExecutionStatus.SUCCEEDED, 45_000, null);
    f.alerter.runOnce();
    assertThat(received())
        .containsExactlyInAnyOrder(
            "timed_out firing", "duration_over firing", "timed_out resolved");

    // A run within the threshold clears duration_over.
    Job quick = f.running("etl", 3, "w1");
    f.end(quick, JobState.SUCCEEDED, ExecutionStatus.SUCCEEDED, 10, null);
    f.alerter.runOnce();
    assertThat(received())
        .containsExactlyInAnyOrder(
            "timed_out firing",
            "duration_over firing",
            "timed_out resolved",
            "duration_over resolved");
    JsonNode resolved = bodies().get(3);
    assertThat(resolved.path("incident").path("events").asInt()).isEqualTo(2);
    assertThat(resolved.path("recoveredBy").path("jobId").asText())
        .isEqualTo(quick.id().toString());
  }

  @Test
  void consecutiveFailuresFireAndClearWhenASuccessComes() {
    f.rule(
        draft(
            "streak",
            AlertEvent.CONSECUTIVE_FAILURES,
            "sync",
            2,
            null,
            null,
            null,
            f.receiver.url("/streak")));
    f.fail("sync");
    f.clock.advance(Duration.ofMillis(10));
    f.alerter.runOnce();
    assertThat(f.receiver.received()).as("one failure is no streak of two").isEmpty();

    f.fail("sync");
    f.clock.advance(Duration.ofMillis(10));
    f.alerter.runOnce();
    f.alerter.runOnce();
    assertThat(bodies()).extracting(b -> b.path("status").asText()).containsExactly("firing");

    f.succeed("sync");
    f.clock.advance(Duration.ofMillis(10));
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("status").asText())
        .containsExactly("firing", "resolved");
  }

  @Test
  void aConditionRuleChangedToAnotherTypeClearsTheOldIncident() {
    AlertRule rule =
        f.rule(
            draft(
                "streak",
                AlertEvent.CONSECUTIVE_FAILURES,
                "sync",
                1,
                null,
                null,
                null,
                f.receiver.url("/streak")));
    f.fail("sync");
    f.clock.advance(Duration.ofMillis(10));
    f.alerter.runOnce();
    f.rules.replace(
        "default",
        rule.id(),
        draft(
            "streak",
            AlertEvent.CONSECUTIVE_FAILURES,
            "other",
            1,
            null,
            null,
            null,
            f.receiver.url("/streak")));
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("subject").asText() + " " + b.path("status").asText())
        .containsExactly("type:sync firing", "type:sync resolved");
  }

  @Test
  void aFailureRateOverThePercentFires() {
    f.rule(
        draft(
            "rate",
            AlertEvent.FAILURE_RATE,
            null,
            null,
            50,
            Duration.ofHours(1),
            null,
            f.receiver.url("/rate")));
    f.succeed("a");
    f.succeed("a");
    f.fail("a");
    f.alerter.runOnce();
    assertThat(f.receiver.received()).as("33 %").isEmpty();
    f.fail("b");
    f.alerter.runOnce();
    assertThat(bodies()).hasSize(1);
    assertThat(bodies().get(0).path("detail").path("failed").asInt()).isEqualTo(2);
    assertThat(bodies().get(0).path("detail").path("ended").asInt()).isEqualTo(4);
  }

  @Test
  void jobsWaitingTooLongAndANamespaceWithoutWorkerFireAndResolve() {
    f.rule(
        draft(
            "waiting",
            AlertEvent.WAITING_OVER,
            null,
            null,
            null,
            null,
            Duration.ofMinutes(5),
            f.receiver.url("/waiting")));
    f.rule(
        draft("nobody", AlertEvent.NO_WORKER, null, null, null, null, null, f.receiver.url("/nw")));
    Job due =
        f.stores
            .submissions()
            .submit(List.of(io.punctual.store.testing.Jobs.aJob().runAt(f.clock.instant()).build()))
            .get(0)
            .job();
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("rule").path("event").asText())
        .containsExactly("no_worker");

    f.stores
        .workers()
        .register(
            new WorkerRegistry.Registration(
                "w1", "host", 1, List.of("default"), 4, Duration.ofSeconds(10)));
    f.clock.advance(Duration.ofMinutes(5).plusSeconds(1));
    f.stores.workers().beat("w1", 0);
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("rule").path("event").asText() + " " + b.path("status").asText())
        .containsExactly("no_worker firing", "no_worker resolved", "waiting_over firing");

    f.stores.transitions().claim(List.of(due.id()), "w1");
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("rule").path("event").asText() + " " + b.path("status").asText())
        .containsExactly(
            "no_worker firing",
            "no_worker resolved",
            "waiting_over firing",
            "waiting_over resolved");
  }

  @Test
  void aFireTimeThePlannerRecordedAsMissedFiresOncePerSchedule() {
    UUID schedule = io.punctual.model.JobId.forScheduledTime(f.clock.instant());
    f.stores
        .database()
        .jdbi()
        .useHandle(
            h -> {
              h.execute(
                  "INSERT INTO schedules (id, namespace, name, every_ms, type, max_attempts,"
                      + " backoff, created_at, updated_at) VALUES (?, 'default', 'nightly', 60000,"
                      + " 'report', 1, '{}'::jsonb, ?, ?)",
                  schedule,
                  f.clock.instant().minusSeconds(3600),
                  f.clock.instant().minusSeconds(3600));
            });
    f.rule("missed", AlertEvent.FIRE_TIME_MISSED, null);
    for (int i = 3; i >= 1; i--) {
      java.time.Instant fireAt = f.clock.instant().minusSeconds(60L * i);
      f.stores
          .database()
          .jdbi()
          .useHandle(
              h ->
                  h.execute(
                      "INSERT INTO schedule_occurrences (schedule_id, fire_at, outcome, created_at)"
                          + " VALUES (?, ?, 'missed', ?)",
                      schedule,
                      fireAt,
                      f.clock.instant()));
    }
    f.clock.advance(Duration.ofSeconds(1));
    f.alerter.runOnce();
    f.alerter.runOnce();
    assertThat(bodies()).hasSize(1);
    assertThat(bodies().get(0).path("subject").asText()).isEqualTo("schedule:" + schedule);
    assertThat(bodies().get(0).path("detail").path("outcome").asText()).isEqualTo("missed");

    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce();
    assertThat(bodies())
        .extracting(b -> b.path("status").asText())
        .containsExactly("firing", "resolved");
    assertThat(bodies().get(1).path("incident").path("events").asInt()).isEqualTo(3);
  }

  @Test
  void aSlackRuleGetsASlackShapedBody() {
    f.rule(
        new AlertRule.Draft(
            "chat",
            AlertEvent.JOB_FAILED,
            null,
            null,
            null,
            null,
            null,
            null,
            AlertRule.Channel.SLACK,
            f.receiver.url("/services/T0/B0/secret"),
            Duration.ZERO));
    f.fail("report<!channel>");
    f.alerter.runOnce();
    JsonNode body = bodies().get(0);
    assertThat(body.size()).isEqualTo(1);
    assertThat(body.path("text").asText())
        .startsWith("FIRING: Punctual alert \"chat\"")
        .contains("report&lt;!channel&gt;")
        .doesNotContain("<!channel>");
  }

  @Test
  void theOutboxRowExistsOnlyIfTheFailedTransitionCommitted() {
    f.rule("any", AlertEvent.JOB_FAILED, null);
    // A fault after the outbox row was written in the finish's transaction: the transaction rolls
    // back, the job is still RUNNING and no row is left.
    f.stores
        .database()
        .jdbi()
        .useHandle(
            h -> {
              h.execute(
                  "CREATE FUNCTION test_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                      + " IF NEW.detail->>'error' = 'rollback-me' THEN RAISE EXCEPTION 'fault';"
                      + " END IF; RETURN NEW; END $$");
              h.execute(
                  "CREATE TRIGGER test_fault AFTER INSERT ON alert_events FOR EACH ROW EXECUTE"
                      + " FUNCTION test_fault()");
            });
    Job job = f.running("report", 1, "w1");
    assertThatThrownBy(() -> f.end(job, JobState.FAILED, ExecutionStatus.FAILED, 5, "rollback-me"))
        .isInstanceOf(RuntimeException.class);
    assertThat(f.find(job).status()).isEqualTo(JobState.RUNNING);
    assertThat(f.count("SELECT count(*) FROM alert_events")).isZero();

    assertThat(f.end(job, JobState.FAILED, ExecutionStatus.FAILED, 5, "boom")).contains(job.id());
    assertThat(f.find(job).status()).isEqualTo(JobState.FAILED);
    assertThat(f.count("SELECT count(*) FROM alert_events")).isEqualTo(1);
    // The same completion again is refused by its attempt number: no second row.
    assertThat(f.end(job, JobState.FAILED, ExecutionStatus.FAILED, 5, "boom")).isEmpty();
    assertThat(f.count("SELECT count(*) FROM alert_events")).isEqualTo(1);
  }

  @Test
  void withoutRulesTheFinishWritesNothing() {
    f.fail("report");
    assertThat(f.count("SELECT count(*) FROM alert_events")).isZero();
    assertThat(f.alerter.runOnce().folded()).isZero();
    assertThat(f.receiver.received()).isEmpty();
  }
}
