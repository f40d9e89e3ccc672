package io.punctual.alerter.evaluate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.alerter.config.AlerterSettings;
import io.punctual.alerter.incident.Incidents;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.sql.SqlFiles;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The periodic evaluator: on each pass, the condition kinds (consecutive_failures, failure_rate,
 * waiting_over, no_worker) are checked for every rule, opening an incident when true and clearing
 * it when false again; the fire times the planner recorded without a job become outbox events
 * (fire_time_missed); incidents of event kinds with no new event for {@code alerts.resolveAfter}
 * clear. Every step is a guarded statement, so several alerters may evaluate at once.
 */
public final class Conditions {
  private static final SqlFiles SQL = new SqlFiles(Conditions.class);

  private final Jdbi jdbi;
  private final Clock clock;
  private final Incidents incidents;
  private final AlerterSettings settings;

  public Conditions(Jdbi jdbi, Clock clock, Incidents incidents, AlerterSettings settings) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.incidents = incidents;
    this.settings = settings;
  }

  /** What one evaluation did. */
  public record Evaluation(int opened, int cleared, int missedFireTimes) {}

  /** One pass over {@code rules}. */
  public Evaluation runOnce(List<AlertRule> rules, Map<UUID, AlertRule> byId) {
    Instant now = clock.instant();
    int opened = 0;
    int cleared = 0;
    for (AlertRule rule : rules) {
      if (!rule.event().isCondition()) {
        continue;
      }
      String subject = subject(rule);
      Optional<ObjectNode> firing = check(rule, now);
      if (firing.isPresent()) {
        opened += incidents.conditionTrue(rule, subject, firing.get()) ? 1 : 0;
      }
      // What no longer holds clears, and so does the incident of a subject the rule no longer
      // watches (a PUT that changed its type or schedule).
      for (String open : incidents.openSubjects(rule.id())) {
        if (firing.isEmpty() || !open.equals(subject)) {
          cleared += incidents.clear(rule, open) ? 1 : 0;
        }
      }
    }
    int missed =
        jdbi.withHandle(
            h ->
                h.createUpdate(SQL.get("missedFireTimes"))
                    .bind("since", now.minus(settings.missedLookback))
                    .execute());
    for (Map.Entry<UUID, String> quiet :
        incidents.quiet(now.minus(settings.resolveAfter), settings.batchSize)) {
      AlertRule rule = byId.get(quiet.getKey());
      if (rule != null) {
        cleared += incidents.clear(rule, quiet.getValue()) ? 1 : 0;
      }
    }
    return new Evaluation(opened, cleared, missed);
  }

  /** The one subject a condition rule watches: its job type, its schedule, or its namespace. */
  static String subject(AlertRule rule) {
    if (rule.draft().jobType() != null) {
      return "type:" + rule.draft().jobType();
    }
    if (rule.draft().scheduleId() != null) {
      return "schedule:" + rule.draft().scheduleId();
    }
    return "namespace";
  }

  /** The detail of the condition when it holds now; empty when it does not. */
  private Optional<ObjectNode> check(AlertRule rule, Instant now) {
    AlertRule.Draft d = rule.draft();
    ObjectNode detail = JsonNodeFactory.instance.objectNode();
    if (d.jobType() != null) {
      detail.put("type", d.jobType());
    }
    if (d.scheduleId() != null) {
      detail.put("scheduleId", d.scheduleId().toString());
    }
    return jdbi.withHandle(
        h ->
            switch (rule.event()) {
              case CONSECUTIVE_FAILURES -> {
                Map<String, Object> row =
                    h.createQuery(SQL.get("consecutiveFailures"))
                        .bind("namespace", rule.namespace())
                        .bind("since", now.minus(settings.conditionLookback))
                        .bind("type", d.jobType())
                        .bindByType("scheduleId", d.scheduleId(), UUID.class)
                        .bind("count", d.count())
                        .mapToMap()
                        .one();
                long failed = ((Number) row.get("failed")).longValue();
                detail.put("count", d.count());
                detail.put("failed", failed);
                if (row.get("latest") != null) {
                  detail.put("latestJobId", row.get("latest").toString());
                }
                yield failed >= d.count() ? Optional.of(detail) : Optional.empty();
              }
              case FAILURE_RATE -> {
                Map<String, Object> row =
                    h.createQuery(SQL.get("failureRate"))
                        .bind("namespace", rule.namespace())
                        .bind("windowStart", now.minus(d.window()))
                        .bind("since", now.minus(d.window()).minus(settings.conditionLookback))
                        .bind("type", d.jobType())
                        .mapToMap()
                        .one();
                long total = ((Number) row.get("total")).longValue();
                long failed = ((Number) row.get("failed")).longValue();
                detail.put("percent", d.percent());
                detail.put("window", d.window().toString());
                detail.put("ended", total);
                detail.put("failed", failed);
                yield total > 0 && failed > 0 && failed * 100 >= (long) d.percent() * total
                    ? Optional.of(detail)
                    : Optional.empty();
              }
              case WAITING_OVER -> {
                Optional<Timestamp> oldest =
                    h.createQuery(SQL.get("waitingOver"))
                        .bind("namespace", rule.namespace())
                        .bind("before", now.minus(d.threshold()))
                        .bind("type", d.jobType())
                        .mapTo(Timestamp.class)
                        .findOne();
                if (oldest.isEmpty()) {
                  yield Optional.empty();
                }
                detail.put("threshold", d.threshold().toString());
                detail.put("oldestDueAt", oldest.get().toInstant().toString());
                yield Optional.of(detail);
              }
              case NO_WORKER -> {
                Map<String, Object> row =
                    h.createQuery(SQL.get("noWorker"))
                        .bind("namespace", rule.namespace())
                        .bind("now", now)
                        .mapToMap()
                        .one();
                boolean due = Boolean.TRUE.equals(row.get("due"));
                boolean served = Boolean.TRUE.equals(row.get("served"));
                yield due && !served ? Optional.of(detail) : Optional.empty();
              }
              default -> Optional.empty();
            });
  }
}
