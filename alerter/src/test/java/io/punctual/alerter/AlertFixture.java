package io.punctual.alerter;

import static java.nio.charset.StandardCharsets.US_ASCII;

import com.codahale.metrics.MetricRegistry;
import io.punctual.alerter.config.AlerterSettings;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.outbound.signing.SigningSecret;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.alert.AlertRules;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.store.testing.Jobs;
import io.punctual.store.testing.TestClock;
import io.punctual.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/** A fresh database and Redis, stores and an alerter on a test clock, a receiver on loopback. */
final class AlertFixture implements AutoCloseable {
  /** The deployment's secrets key of these tests: signing secrets are stored sealed. */
  static final byte[] SECRETS_KEY = "the alerter tests 32-byte secret".getBytes(US_ASCII);

  final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  final Stores stores;
  final AlertRules rules;
  final AlerterSettings settings = new AlerterSettings();
  final HttpSettings http = new HttpSettings();
  final Receiver receiver = new Receiver();
  final SigningSecrets signingSecrets;

  /** The signing secret of namespace default, which the rules are of. */
  final String secret;

  /** Another namespace's secret, which must not verify default's notices. */
  final String otherSecret;

  final Alerter alerter;

  AlertFixture() {
    TestStores servers = TestStores.get();
    stores =
        new Stores(servers.newDatabase(), TestRedis.newRedis(), new QueueSettings(), clock, "t");
    stores.partitions().ensureAhead();
    rules = new AlertRules(stores.database().jdbi(), clock);
    http.allow = List.of("127.0.0.1/32"); // the receiver listens on loopback: tests only
    signingSecrets =
        new SigningSecrets(stores.database().jdbi(), clock, SecretSealer.withKey(SECRETS_KEY));
    secret = SigningSecret.ofKey(signingSecrets.create("default").orElseThrow().key()).text();
    otherSecret = SigningSecret.ofKey(signingSecrets.create("billing").orElseThrow().key()).text();
    alerter = alerter();
  }

  /** Another alerter over the same database (as a second reaper runs one). */
  Alerter alerter() {
    return alerter(http, new MetricRegistry());
  }

  /** An alerter with other HTTP settings or metrics. */
  Alerter alerter(HttpSettings with, MetricRegistry metrics) {
    return new Alerter(
        stores.database().jdbi(),
        clock,
        settings,
        with,
        WebhookSigner.caching(signingSecrets::signingKeysOf, clock),
        metrics);
  }

  AlertRule rule(String name, AlertEvent event, String type) {
    return rule(
        new AlertRule.Draft(
            name,
            event,
            type,
            null,
            null,
            null,
            null,
            null,
            AlertRule.Channel.WEBHOOK,
            receiver.url("/hooks/" + name),
            Duration.ZERO));
  }

  AlertRule rule(AlertRule.Draft draft) {
    AlertRule rule = rules.create("default", draft);
    stores.transitions().alerts().refresh();
    return rule;
  }

  /** A job of {@code type} stored and claimed (RUNNING, attempt 1) by {@code worker}. */
  Job running(String type, int maxAttempts, String worker) {
    Submitted s =
        stores
            .submissions()
            .submit(
                List.of(
                    Jobs.aJob().type(type).runAt(clock.instant()).maxAttempts(maxAttempts).build()))
            .get(0);
    return stores.transitions().claim(List.of(s.job().id()), worker).get(0);
  }

  /** Ends the running job's attempt: FAILED for good (its last attempt), or SUCCEEDED. */
  java.util.Set<UUID> end(
      Job job, JobState next, ExecutionStatus exec, long durationMs, String error) {
    return stores
        .transitions()
        .finish(
            List.of(
                new Completion(
                    job.id(),
                    job.attempt(),
                    next,
                    next == JobState.PENDING ? clock.instant().plusSeconds(60) : null,
                    exec,
                    clock.instant(),
                    durationMs,
                    error,
                    null,
                    null,
                    List.of())),
            "w1")
        .applied();
  }

  Job fail(String type) {
    Job job = running(type, 1, "w1");
    end(job, JobState.FAILED, ExecutionStatus.FAILED, 5, "boom");
    return job;
  }

  Job succeed(String type) {
    Job job = running(type, 1, "w1");
    end(job, JobState.SUCCEEDED, ExecutionStatus.SUCCEEDED, 5, null);
    return job;
  }

  Job find(Job job) {
    return stores.queries().find(job.namespace(), job.id()).orElseThrow();
  }

  long count(String sql) {
    return stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  @Override
  public void close() {
    alerter.close();
    receiver.close();
    stores.close();
  }
}
