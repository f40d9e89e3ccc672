package io.punctual.alerter.incident;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.sql.SqlFiles;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Incidents and their notices. An incident is open per rule and subject (a job type, a schedule,
 * the namespace) from its first event, or from its condition becoming true, until it clears: its
 * opening writes one firing notice, its clearing one resolved notice (dedup: however many events it
 * counts, and however many alerters run, each notice is written once). The rule's cooldown holds a
 * firing notice until {@code cooldown} after the previous firing notice of the same rule and
 * subject was due; an incident that clears while its firing notice is still held sends neither.
 */
public final class Incidents {
  private static final Logger log = LoggerFactory.getLogger(Incidents.class);
  private static final SqlFiles SQL = new SqlFiles(Incidents.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public Incidents(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  private record Event(
      long id, UUID ruleId, String subject, String detail, Instant occurredAt, boolean recovery) {}

  /**
   * Folds up to {@code limit} outbox events into incidents, in one transaction, in the order they
   * were written; returns how many it folded. An event opens its incident or counts into it; a
   * recovery (a success of the subject) clears the incident the events before it opened. Events
   * whose rule is not in {@code rules} (deleted meanwhile) are dropped.
   */
  public int fold(Map<UUID, AlertRule> rules, int limit) {
    Instant now = clock.instant();
    return jdbi.inTransaction(
        h -> {
          List<Event> events =
              h.createQuery(sql("unfolded"))
                  .bind("limit", limit)
                  .map(
                      (rs, ctx) ->
                          new Event(
                              rs.getLong("id"),
                              rs.getObject("rule_id", UUID.class),
                              rs.getString("subject"),
                              rs.getString("detail"),
                              instant(rs.getTimestamp("occurred_at")),
                              rs.getBoolean("recovery")))
                  .list();
          if (events.isEmpty()) {
            return 0;
          }
          for (Event e : events) {
            AlertRule rule = rules.get(e.ruleId());
            if (rule != null && e.recovery()) {
              recovered(h, rule, e, now);
            } else if (rule != null) {
              open(h, rule, e.subject(), e.detail(), e.occurredAt(), now);
            }
          }
          h.createUpdate(sql("markFolded"))
              .bind("ids", events.stream().map(Event::id).toArray(Long[]::new))
              .bind("now", now)
              .execute();
          return events.size();
        });
  }

  /** Deletes folded events older than {@code before} (the evaluator no longer finds them). */
  public int cleanup(Instant before) {
    return jdbi.withHandle(h -> h.createUpdate(sql("cleanup")).bind("before", before).execute());
  }

  private void open(
      Handle h, AlertRule rule, String subject, String detail, Instant at, Instant now) {
    UUID newId = UUID.randomUUID();
    var row =
        h.createQuery(sql("open"))
            .bind("ruleId", rule.id())
            .bind("subject", subject)
            .bind("id", newId)
            .bind("now", now)
            .bind("at", at)
            .bind("detail", detail)
            .mapToMap()
            .one();
    if (Boolean.TRUE.equals(row.get("opened"))) {
      firing(h, rule, subject, newId, now, Json.readTree(detail));
    }
  }

  /**
   * A condition is true now for {@code subject}: opens its incident (and writes the firing notice)
   * unless it is open. Returns whether it opened one.
   */
  public boolean conditionTrue(AlertRule rule, String subject, JsonNode detail) {
    Instant now = clock.instant();
    return jdbi.inTransaction(
        h -> {
          UUID id = UUID.randomUUID();
          Optional<UUID> opened =
              h.createQuery(sql("openIfAbsent"))
                  .bind("ruleId", rule.id())
                  .bind("subject", subject)
                  .bind("id", id)
                  .bind("now", now)
                  .bind("detail", Json.write(detail))
                  .map((rs, ctx) -> rs.getObject("id", UUID.class))
                  .findOne();
          opened.ifPresent(i -> firing(h, rule, subject, i, now, detail));
          return opened.isPresent();
        });
  }

  /** The subjects of the rule's open incidents. */
  public Set<String> openSubjects(UUID ruleId) {
    return jdbi.withHandle(
        h ->
            Set.copyOf(
                h.createQuery(sql("openSubjects"))
                    .bind("ruleId", ruleId)
                    .mapTo(String.class)
                    .list()));
  }

  /** Open incidents of event kinds with no event since {@code before}: (rule, subject) pairs. */
  public List<Map.Entry<UUID, String>> quiet(Instant before, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("quiet"))
                .bind("before", before)
                .bind("limit", limit)
                .map(
                    (rs, ctx) ->
                        Map.entry(rs.getObject("rule_id", UUID.class), rs.getString("subject")))
                .list());
  }

  /**
   * The incident of {@code rule} and {@code subject} cleared: it is closed and its resolved notice
   * written (none when its firing notice was still held by the cooldown, which is then dropped).
   * Returns whether this call closed it.
   */
  public boolean clear(AlertRule rule, String subject) {
    Instant now = clock.instant();
    return jdbi.inTransaction(
        h ->
            closed(
                h,
                rule,
                subject,
                h.createQuery(sql("close"))
                    .bind("ruleId", rule.id())
                    .bind("subject", subject)
                    .mapToMap()
                    .findOne(),
                null,
                now));
  }

  /**
   * A recovery of the event's subject (a success, written by the finish that made it): the incident
   * clears, with its resolved notice, unless an event came after the recovery (a failure of a later
   * job folded first).
   */
  private void recovered(Handle h, AlertRule rule, Event e, Instant now) {
    var closed =
        h.createQuery(sql("closeRecovered"))
            .bind("ruleId", rule.id())
            .bind("subject", e.subject())
            .bind("at", e.occurredAt())
            .mapToMap()
            .findOne();
    closed(h, rule, e.subject(), closed, Json.readTree(e.detail()), now);
  }

  /**
   * Writes the resolved notice of an incident just closed (none when its firing notice was still
   * held by the cooldown); {@code recovery}: the success that cleared it, if one did. Returns
   * whether an incident was closed.
   */
  private boolean closed(
      Handle h,
      AlertRule rule,
      String subject,
      Optional<Map<String, Object>> closed,
      JsonNode recovery,
      Instant now) {
    if (closed.isEmpty()) {
      return false;
    }
    UUID incident = (UUID) closed.get().get("id");
    Instant openedAt = instant((Timestamp) closed.get().get("opened_at"));
    int events = ((Number) closed.get().get("events")).intValue();
    JsonNode detail = Json.readTree((String) closed.get().get("detail"));
    boolean held =
        h.createQuery(sql("holdFiring"))
            .bind("incidentId", incident)
            .bind("now", now)
            .mapTo(Long.class)
            .findOne()
            .isPresent();
    if (held) {
      log.info(
          "alert incident cleared while held by the cooldown rule={} namespace={} subject={}",
          rule.id(),
          rule.namespace(),
          subject);
      return true;
    }
    var payload =
        Notices.payload(rule, subject, incident, "resolved", openedAt, now, events, detail);
    if (recovery != null) {
      payload.set("recoveredBy", recovery);
    }
    insert(h, rule, subject, incident, "resolved", payload, now, now);
    log.info(
        "alert resolved rule={} namespace={} subject={} incident={} by={}",
        rule.id(),
        rule.namespace(),
        subject,
        incident,
        recovery == null ? "quiet" : "success job=" + recovery.path("jobId").asText());
    return true;
  }

  private void firing(
      Handle h, AlertRule rule, String subject, UUID incident, Instant now, JsonNode detail) {
    Instant due = now;
    Optional<Timestamp> last =
        h.createQuery(sql("lastFiring"))
            .bind("ruleId", rule.id())
            .bind("subject", subject)
            .mapTo(Timestamp.class)
            .findOne();
    Duration cooldown = rule.draft().cooldown();
    if (last.isPresent()) {
      Instant free = last.get().toInstant().plus(cooldown);
      if (free.isAfter(due)) {
        due = free;
      }
    }
    insert(
        h,
        rule,
        subject,
        incident,
        "firing",
        Notices.payload(rule, subject, incident, "firing", now, null, 1, detail),
        due,
        now);
    log.info(
        "alert firing rule={} namespace={} subject={} incident={} due={}",
        rule.id(),
        rule.namespace(),
        subject,
        incident,
        due);
  }

  private static void insert(
      Handle h,
      AlertRule rule,
      String subject,
      UUID incident,
      String kind,
      JsonNode payload,
      Instant due,
      Instant now) {
    h.createUpdate(sql("insertNotice"))
        .bind("ruleId", rule.id())
        .bind("incidentId", incident)
        .bind("subject", subject)
        .bind("kind", kind)
        .bind("dedupKey", Notices.dedupKey(rule.id(), subject, incident, kind))
        .bind("payload", Json.write(payload))
        .bind("dueAt", due)
        .bind("now", now)
        .execute();
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
