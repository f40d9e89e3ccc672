package io.punctual.alerter.send;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.alerter.config.AlerterSettings;
import io.punctual.common.json.Json;
import io.punctual.outbound.GuardedHttpClient;
import io.punctual.outbound.OutboundResponse;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.sql.SqlFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends due notices: claims them (SKIP LOCKED, with a lease, so several alerters share the work and
 * a dead one's notices are tried again), POSTs each through the guarded callback client (the
 * outbound address policy applies at connect time), signed the Standard Webhooks way with the
 * secrets of the rule's namespace ({@code webhook-id} is the notice's dedup key), and records the
 * outcome: sent on a 2xx, else tried again after an exponential backoff, given up ({@code failed})
 * after {@code alerts.maxAttempts}. Delivery is at least once: a receiver deduplicates by {@code
 * webhook-id} (the {@code dedupKey} of the body). A Slack channel gets {@code {"text": ...}},
 * escaped ({@link SlackMessage}).
 */
public final class NoticeSender {
  private static final Logger log = LoggerFactory.getLogger(NoticeSender.class);
  private static final SqlFiles SQL = new SqlFiles(NoticeSender.class);
  private static final int MAX_ERROR = 500;

  private final Jdbi jdbi;
  private final Clock clock;
  private final GuardedHttpClient client;
  private final WebhookSigner signer;
  private final AlerterSettings settings;

  public NoticeSender(
      Jdbi jdbi,
      Clock clock,
      GuardedHttpClient client,
      WebhookSigner signer,
      AlerterSettings settings) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.client = client;
    this.signer = signer;
    this.settings = settings;
  }

  private record Claimed(
      long id,
      UUID ruleId,
      String namespace,
      String channel,
      String url,
      String kind,
      String dedupKey,
      int attempt,
      String payload) {}

  /** What one pass did: notices sent, attempts that failed (to be tried again or given up). */
  public record Sent(int sent, int failed) {}

  /** Claims and sends up to {@code alerts.batchSize} due notices, one after the other. */
  public Sent runOnce() {
    Instant now = clock.instant();
    List<Claimed> claimed =
        jdbi.inTransaction(
            h ->
                h.createQuery(SQL.get("claim"))
                    .bind("now", now)
                    .bind("leaseUntil", now.plus(settings.lease))
                    .bind("limit", settings.batchSize)
                    .map(
                        (rs, ctx) ->
                            new Claimed(
                                rs.getLong("id"),
                                rs.getObject("rule_id", UUID.class),
                                rs.getString("namespace"),
                                rs.getString("channel"),
                                rs.getString("url"),
                                rs.getString("kind"),
                                rs.getString("dedup_key"),
                                rs.getInt("attempts"),
                                rs.getString("payload")))
                    .list());
    int sent = 0;
    int failed = 0;
    for (Claimed c : claimed) {
      if (send(c)) {
        sent++;
      } else {
        failed++;
      }
    }
    return new Sent(sent, failed);
  }

  /** How many notices wait to be sent. */
  public long pending() {
    return jdbi.withHandle(h -> h.createQuery(SQL.get("pending")).mapTo(Long.class).one());
  }

  private boolean send(Claimed c) {
    String body = body(c);
    Instant at = clock.instant();
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    headers.add(Map.entry("User-Agent", "Punctual-Alerter"));
    headers.addAll(
        signer.headers(c.namespace(), c.dedupKey(), at, body.getBytes(StandardCharsets.UTF_8)));
    Integer status = null;
    String error;
    try {
      OutboundResponse response =
          client.send("POST", URI.create(c.url()), headers, body, settings.requestTimeout);
      status = response.status();
      error = status / 100 == 2 ? null : "the receiver answered HTTP " + status;
    } catch (IOException | RuntimeException e) {
      error = describe(e);
    }
    final Integer response = status;
    final String why = error;
    boolean ok = error == null;
    boolean giveUp = !ok && c.attempt() >= settings.maxAttempts;
    Instant next = clock.instant().plus(backoff(c.attempt()));
    jdbi.useHandle(
        h ->
            h.createUpdate(SQL.get("record"))
                .bind("id", c.id())
                .bind("attempt", c.attempt())
                .bind("sent", ok)
                .bind("giveUp", giveUp)
                .bind("now", clock.instant())
                .bind("nextAttemptAt", next)
                .bindByType("response", response, Integer.class)
                .bind("error", why)
                .execute());
    if (ok) {
      log.info(
          "alert notice sent rule={} namespace={} kind={} dedupKey={} attempt={}",
          c.ruleId(),
          c.namespace(),
          c.kind(),
          c.dedupKey(),
          c.attempt());
    } else {
      log.warn(
          "alert notice not delivered rule={} namespace={} kind={} dedupKey={} attempt={} {}: {}",
          c.ruleId(),
          c.namespace(),
          c.kind(),
          c.dedupKey(),
          c.attempt(),
          giveUp ? "given up" : "next at " + next,
          error);
    }
    return ok;
  }

  /** The wait after failed attempt {@code attempt}: doubling from the initial backoff, capped. */
  Duration backoff(int attempt) {
    Duration d = settings.initialBackoff;
    for (int i = 1; i < attempt && d.compareTo(settings.maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(settings.maxBackoff) > 0 ? settings.maxBackoff : d;
  }

  private static String body(Claimed c) {
    if (!"slack".equals(c.channel())) {
      return c.payload();
    }
    JsonNode payload = Json.readTree(c.payload());
    return SlackMessage.body(payload.path("summary").asText(), c.dedupKey());
  }

  /** The failure without the URL (a Slack URL is a credential): its kind and message. */
  private static String describe(Exception e) {
    String message = e.getMessage() == null ? "" : ": " + e.getMessage();
    String text = e.getClass().getSimpleName() + message;
    return text.length() > MAX_ERROR ? text.substring(0, MAX_ERROR) : text;
  }
}
