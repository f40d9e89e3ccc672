package io.punctual.alerter;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.alerter.config.AlerterSettings;
import io.punctual.alerter.evaluate.Conditions;
import io.punctual.alerter.incident.Incidents;
import io.punctual.alerter.send.NoticeSender;
import io.punctual.common.loop.Loops;
import io.punctual.outbound.GuardedHttpClient;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.alert.AlertRules;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alerter loop (run by the reaper role, on a thread of its own, so a receiver that is down
 * never slows a worker or the reaper's repairs). Each pass: {@link Conditions} (the periodic
 * evaluator), {@link Incidents#fold} (outbox events into incidents and notices), {@link
 * NoticeSender} (due notices out, with retries). Every step is guarded (SKIP LOCKED, conflicts on
 * unique keys, a lease on the notices being sent), so any number of reapers may run it. {@link
 * #runOnce()} does one pass.
 */
public final class Alerter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Alerter.class);

  private final AlertRules rules;
  private final Clock clock;
  private final AlerterSettings settings;
  private final Incidents incidents;
  private final Conditions conditions;
  private final GuardedHttpClient client;
  private final NoticeSender sender;
  private final Meter sent;
  private final Meter failedAttempts;

  /**
   * Notices waiting to be sent, as counted at the end of the last pass (-1 before the first): the
   * gauge reads this, so a scrape never queries PostgreSQL.
   */
  private final AtomicLong pending = new AtomicLong(-1);

  private ScheduledExecutorService executor;

  /**
   * {@code http}: the callbacks' settings, whose address policy ({@code allow}) and signing secrets
   * alert notices share.
   */
  public Alerter(
      Jdbi jdbi,
      Clock clock,
      AlerterSettings settings,
      HttpSettings http,
      WebhookSigner signer,
      MetricRegistry metrics) {
    settings.validate();
    this.rules = new AlertRules(jdbi, clock);
    this.clock = clock;
    this.settings = settings;
    this.incidents = new Incidents(jdbi, clock);
    this.conditions = new Conditions(jdbi, clock, incidents, settings);
    this.client =
        new GuardedHttpClient(
            http.outboundPolicy(),
            settings.connectTimeout,
            settings.requestTimeout,
            http.maxResponseBytes,
            null);
    this.sender = new NoticeSender(jdbi, clock, client, signer, settings);
    this.sent = metrics.meter("punctual.alerts.sent");
    this.failedAttempts = metrics.meter("punctual.alerts.failedAttempts");
    metrics.gauge("punctual.alerts.pending", () -> (Gauge<Long>) pending::get);
  }

  /** What one pass did. */
  public record Pass(Conditions.Evaluation evaluation, int folded, NoticeSender.Sent sent) {}

  /**
   * Evaluates, folds the outbox, sends what is due, then counts the notices still pending (the
   * {@code punctual.alerts.pending} gauge, at most one pass old).
   */
  public Pass runOnce() {
    List<AlertRule> all = rules.all();
    Map<UUID, AlertRule> byId = new HashMap<>();
    all.forEach(r -> byId.put(r.id(), r));
    Conditions.Evaluation evaluation = conditions.runOnce(all, byId);
    int folded = 0;
    int n;
    do {
      n = incidents.fold(byId, settings.batchSize);
      folded += n;
    } while (n == settings.batchSize);
    incidents.cleanup(clock.instant().minus(settings.missedLookback));
    NoticeSender.Sent out = sender.runOnce();
    sent.mark(out.sent());
    failedAttempts.mark(out.failed());
    pending.set(sender.pending());
    return new Pass(evaluation, folded, out);
  }

  public synchronized void start() {
    if (executor != null) {
      throw new IllegalStateException("already started");
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("punctual-alerter").factory());
    // The executor's shutdown cancels it; a failed pass is logged below.
    ScheduledFuture<?> unused =
        executor.scheduleWithFixedDelay(
            () -> {
              try {
                Pass pass = runOnce();
                log.trace("alerter pass: {}", pass);
              } catch (RuntimeException e) {
                log.warn("alerter pass failed: {}", e.toString());
                log.debug("alerter pass failure", e);
              }
            },
            0,
            settings.interval.toNanos(),
            TimeUnit.NANOSECONDS);
    log.info("alerter started interval={}", settings.interval);
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      Loops.stopNow(executor);
      executor = null;
    }
    try {
      client.close();
    } catch (IOException e) {
      log.debug("alerter client close failed", e);
    }
  }
}
