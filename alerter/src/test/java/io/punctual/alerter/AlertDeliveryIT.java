package io.punctual.alerter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.common.random.PerThreadRandom;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import io.punctual.reaper.Rescuer;
import io.punctual.store.JobTransitions;
import io.punctual.store.alert.AlertDelivery;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retries while the receiver is down, the cooldown, and several alerters sharing the work. */
class AlertDeliveryIT {
  private final AlertFixture f = new AlertFixture();

  @AfterEach
  void close() {
    f.close();
  }

  private Map<String, Long> perDedupKey() {
    return f.receiver.received().stream()
        .map(r -> Json.readTree(r.body()).path("dedupKey").asText())
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  private List<String> statuses() {
    return f.receiver.received().stream()
        .map(r -> Json.readTree(r.body()))
        .map(b -> b.path("rule").path("event").asText() + " " + b.path("status").asText())
        .toList();
  }

  private AlertRule.Draft withCooldown(String name, Duration cooldown) {
    return new AlertRule.Draft(
        name,
        AlertEvent.JOB_FAILED,
        null,
        null,
        null,
        null,
        null,
        null,
        AlertRule.Channel.WEBHOOK,
        f.receiver.url("/cooldown"),
        cooldown);
  }

  @Test
  void aReceiverDownForFiveMinutesWhileAWorkerIsKilledGetsEachNoticeOnceAfterwards() {
    f.rule("failures", AlertEvent.JOB_FAILED, null);
    f.rule("rescues", AlertEvent.ATTEMPTS_RESCUED, null);
    ReaperSettings reaper = new ReaperSettings();
    Rescuer rescuer =
        new Rescuer(f.clock, Reaper.rescueStores(f.stores), reaper, PerThreadRandom.INSTANCE);

    f.receiver.down();
    Job failed = f.fail("report");
    // A worker claims a job and is killed: nothing reports for it again.
    Job lost = f.running("etl", 3, "killed-worker");
    Job fine = f.running("etl", 3, "w1");

    // Five minutes of passes, the receiver down all along; jobs go on meanwhile.
    int attempts = 0;
    for (int second = 0; second <= 300; second += 15) {
      Alerter.Pass pass = f.alerter.runOnce();
      attempts += pass.sent().failed();
      assertThat(pass.sent().sent()).isZero();
      f.stores
          .transitions()
          .heartbeat(List.of(new JobTransitions.Attempt(fine.id(), fine.attempt())));
      if (second == 75) {
        assertThat(rescuer.runOnce()).as("the killed worker's attempt").isEqualTo(1);
      }
      if (second == 90) {
        // finishes normally while the receiver is down
        f.end(fine, JobState.SUCCEEDED, io.punctual.model.ExecutionStatus.SUCCEEDED, 5, null);
      }
      f.clock.advance(Duration.ofSeconds(15));
    }
    assertThat(attempts).as("tried again and again, with backoff").isBetween(3, 20);
    assertThat(f.find(lost).status()).isEqualTo(JobState.PENDING);
    assertThat(f.find(fine).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(f.find(failed).status()).isEqualTo(JobState.FAILED);
    assertThat(f.receiver.received()).isEmpty();

    // Back up: the notices arrive, each once; later passes send nothing again.
    f.receiver.up();
    for (int i = 0; i < 12; i++) {
      f.alerter.runOnce();
      f.clock.advance(Duration.ofMinutes(1));
    }
    assertThat(statuses())
        .containsExactlyInAnyOrder(
            "job_failed firing",
            "attempts_rescued firing",
            "job_failed resolved",
            "attempts_rescued resolved");
    assertThat(perDedupKey().values()).containsOnly(1L);
    // Firing before resolved, for each incident.
    List<String> order = statuses();
    assertThat(order.indexOf("job_failed firing")).isLessThan(order.indexOf("job_failed resolved"));
    assertThat(order.indexOf("attempts_rescued firing"))
        .isLessThan(order.indexOf("attempts_rescued resolved"));
    assertThat(f.count("SELECT count(*) FROM alert_deliveries WHERE status <> 'sent'")).isZero();
    assertThat(f.count("SELECT min(attempts) FROM alert_deliveries WHERE kind = 'firing'"))
        .isGreaterThan(1);
  }

  @Test
  void theCooldownHoldsTheNextFiringNoticeOfARuleAndSubject() {
    AlertRule rule = f.rule(withCooldown("held", Duration.ofMinutes(30)));
    f.fail("report");
    f.alerter.runOnce();
    assertThat(statuses()).containsExactly("job_failed firing");

    // Resolved after 10 quiet minutes; a new failure opens a new incident at minute 11.
    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce();
    f.clock.advance(Duration.ofSeconds(50));
    f.fail("report");
    f.alerter.runOnce();
    assertThat(statuses()).containsExactly("job_failed firing", "job_failed resolved");

    // Held until 30 minutes after the first firing notice was due, then sent.
    f.clock.advance(Duration.ofMinutes(8));
    f.fail("report"); // keeps the incident open
    f.alerter.runOnce();
    assertThat(f.receiver.received()).hasSize(2);
    f.clock.advance(Duration.ofMinutes(6));
    f.fail("report");
    f.clock.advance(Duration.ofMinutes(6)); // 30 min 51 s after the first notice was due
    f.alerter.runOnce();
    assertThat(statuses())
        .containsExactly("job_failed firing", "job_failed resolved", "job_failed firing");
    List<AlertDelivery> deliveries = f.rules.deliveries(rule.id(), null, 10);
    assertThat(deliveries.get(0).dueAt())
        .isEqualTo(deliveries.get(2).dueAt().plus(Duration.ofMinutes(30)));
  }

  @Test
  void anIncidentThatClearsWhileItsNoticeIsHeldSendsNothing() {
    AlertRule rule = f.rule(withCooldown("flap", Duration.ofHours(2)));
    f.fail("report");
    f.alerter.runOnce();
    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce();
    f.fail("report"); // a second incident, held by the cooldown
    f.alerter.runOnce();
    f.clock.advance(f.settings.resolveAfter.plusSeconds(1));
    f.alerter.runOnce(); // it clears while held
    f.clock.advance(Duration.ofHours(3));
    f.alerter.runOnce();
    assertThat(statuses()).containsExactly("job_failed firing", "job_failed resolved");
    assertThat(f.rules.deliveries(rule.id(), null, 10))
        .extracting(AlertDelivery::kind, AlertDelivery::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("firing", "held"),
            org.assertj.core.groups.Tuple.tuple("resolved", "sent"),
            org.assertj.core.groups.Tuple.tuple("firing", "sent"));
  }

  @Test
  void severalAlertersSendEachNoticeOnce() throws Exception {
    f.rule("all", AlertEvent.JOB_FAILED, null);
    for (int i = 0; i < 30; i++) {
      f.fail("type" + i); // 30 types: 30 incidents
    }
    List<Alerter> alerters = List.of(f.alerter, f.alerter(), f.alerter());
    ExecutorService pool = Executors.newFixedThreadPool(alerters.size());
    try {
      for (int round = 0; round < 3; round++) {
        List<Callable<Alerter.Pass>> passes = new ArrayList<>();
        alerters.forEach(a -> passes.add(a::runOnce));
        for (Future<Alerter.Pass> done : pool.invokeAll(passes)) {
          done.get();
        }
      }
    } finally {
      pool.shutdownNow();
      alerters.subList(1, alerters.size()).forEach(Alerter::close);
    }
    assertThat(perDedupKey()).hasSize(30);
    assertThat(perDedupKey().values()).containsOnly(1L);
    assertThat(f.count("SELECT count(*) FROM alert_deliveries")).isEqualTo(30);
  }

  @Test
  void theOutboundGuardRefusesALoopbackReceiverUnlessAllowed() {
    AlertRule rule =
        f.rule(
            new AlertRule.Draft(
                "local",
                AlertEvent.JOB_FAILED,
                null,
                null,
                null,
                null,
                null,
                null,
                AlertRule.Channel.WEBHOOK,
                f.receiver.url("/x").replace("127.0.0.1", "localhost"),
                Duration.ZERO));
    HttpSettings closed = new HttpSettings();
    f.fail("report");
    try (Alerter guarded = f.alerter(closed, new com.codahale.metrics.MetricRegistry())) {
      assertThat(guarded.runOnce().sent().failed()).isEqualTo(1);
    }
    assertThat(f.receiver.received()).isEmpty();
    AlertDelivery d = f.rules.deliveries(rule.id(), null, 10).get(0);
    assertThat(d.status()).isEqualTo("pending");
    assertThat(d.lastError()).contains("loopback");

    // The same notice goes through where loopback is allowed (the tests' receiver).
    f.clock.advance(Duration.ofMinutes(1));
    assertThat(f.alerter.runOnce().sent().sent()).isEqualTo(1);
    assertThat(f.receiver.received()).hasSize(1);
  }

  @Test
  void aNoticeIsGivenUpAfterMaxAttempts() {
    f.settings.maxAttempts = 2;
    AlertRule rule = f.rule("gone", AlertEvent.JOB_FAILED, null);
    f.receiver.down();
    f.fail("report");
    f.alerter.runOnce();
    f.clock.advance(Duration.ofMinutes(1));
    f.alerter.runOnce();
    f.clock.advance(Duration.ofMinutes(5));
    f.alerter.runOnce();
    AlertDelivery d = f.rules.deliveries(rule.id(), null, 10).get(0);
    assertThat(d.status()).isEqualTo("failed");
    assertThat(d.attempts()).isEqualTo(2);
    assertThat(d.lastError()).contains("127.0.0.1").doesNotContain("/hooks/");
    JsonNode payload = d.payload();
    assertThat(payload.path("status").asText()).isEqualTo("firing");
  }
}
