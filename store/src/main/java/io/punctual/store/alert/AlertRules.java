package io.punctual.store.alert;

import static io.punctual.store.sql.Columns.instant;
import static io.punctual.store.sql.Columns.integer;

import io.punctual.common.json.Json;
import io.punctual.model.JobId;
import io.punctual.store.alert.AlertRule.Channel;
import io.punctual.store.alert.AlertRule.Draft;
import io.punctual.store.sql.SqlFiles;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.postgresql.util.PSQLException;

/**
 * The {@code alert_rules} table (V15) and the notices of each rule ({@code alert_deliveries}), as
 * the API reads and writes them. Every method takes the namespace: a rule of another namespace is
 * as good as absent. The SQL is in {@code AlertRules/*.sql} beside this class.
 */
public final class AlertRules {
  private static final SqlFiles SQL = new SqlFiles(AlertRules.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public AlertRules(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** The namespace has a rule of that name already. */
  public static final class NameTakenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NameTakenException(String name) {
      super("an alert rule named " + name + " exists in this namespace");
    }
  }

  /**
   * Stores a new rule.
   *
   * @throws NameTakenException when the namespace has a rule of that name
   */
  public AlertRule create(String namespace, Draft draft) {
    Instant now = clock.instant();
    return jdbi.withHandle(
            h ->
                bind(h.createQuery(sql("create")), draft)
                    .bind("id", JobId.forScheduledTime(now))
                    .bind("namespace", namespace)
                    .bind("now", now)
                    .map(AlertRules::rule)
                    .findOne())
        .orElseThrow(() -> new NameTakenException(draft.name()));
  }

  public Optional<AlertRule> find(String namespace, UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("find"))
                .bind("namespace", namespace)
                .bind("id", id)
                .map(AlertRules::rule)
                .findOne());
  }

  /** Up to {@code limit} rules of the namespace named after {@code afterName} (null: first). */
  public List<AlertRule> list(String namespace, String afterName, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("list"))
                .bind("namespace", namespace)
                .bind("after", afterName)
                .bind("limit", limit)
                .map(AlertRules::rule)
                .list());
  }

  /** Every rule (the alerter's evaluator reads them all on each pass). */
  public List<AlertRule> all() {
    return jdbi.withHandle(h -> h.createQuery(sql("all")).map(AlertRules::rule).list());
  }

  /**
   * Replaces the rule's definition; empty when the namespace has no such rule.
   *
   * @throws NameTakenException when renamed to a name another rule of the namespace has
   */
  public Optional<AlertRule> replace(String namespace, UUID id, Draft draft) {
    Instant now = clock.instant();
    try {
      return jdbi.withHandle(
          h ->
              bind(h.createQuery(sql("replace")), draft)
                  .bind("id", id)
                  .bind("namespace", namespace)
                  .bind("now", now)
                  .map(AlertRules::rule)
                  .findOne());
    } catch (UnableToExecuteStatementException e) {
      if (e.getCause() instanceof PSQLException p && "23505".equals(p.getSQLState())) {
        throw new NameTakenException(draft.name());
      }
      throw e;
    }
  }

  /** Deletes the rule with its incidents and notices; false when there is no such rule. */
  public boolean delete(String namespace, UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("delete"))
                .bind("namespace", namespace)
                .bind("id", id)
                .mapTo(UUID.class)
                .findOne()
                .isPresent());
  }

  /** Whether the namespace has a schedule of that id (what a rule may narrow itself to). */
  public boolean scheduleExists(String namespace, UUID scheduleId) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("scheduleExists"))
                .bind("namespace", namespace)
                .bind("id", scheduleId)
                .mapTo(Boolean.class)
                .one());
  }

  /** Up to {@code limit} notices of the rule, newest first, older than {@code beforeId} if set. */
  public List<AlertDelivery> deliveries(UUID ruleId, Long beforeId, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("deliveries"))
                .bind("ruleId", ruleId)
                .bindByType("before", beforeId, Long.class)
                .bind("limit", limit)
                .map(AlertRules::delivery)
                .list());
  }

  private static <S extends SqlStatement<S>> S bind(S statement, Draft d) {
    return statement
        .bind("name", d.name())
        .bind("event", d.event().wireName())
        .bind("jobType", d.jobType())
        .bindByType("scheduleId", d.scheduleId(), UUID.class)
        .bindByType("count", d.count(), Integer.class)
        .bindByType("percent", d.percent(), Integer.class)
        .bindByType("windowMs", millis(d.window()), Long.class)
        .bindByType("thresholdMs", millis(d.threshold()), Long.class)
        .bind("channel", d.channel().wireName())
        .bind("url", d.url())
        .bind("cooldownMs", d.cooldown().toMillis());
  }

  private static Long millis(Duration d) {
    return d == null ? null : d.toMillis();
  }

  private static Duration duration(ResultSet rs, String column) throws SQLException {
    long ms = rs.getLong(column);
    return rs.wasNull() ? null : Duration.ofMillis(ms);
  }

  static AlertRule rule(ResultSet rs, StatementContext ctx) throws SQLException {
    Draft draft =
        new Draft(
            rs.getString("name"),
            AlertEvent.fromWire(rs.getString("event")).orElseThrow(),
            rs.getString("job_type"),
            rs.getObject("schedule_id", UUID.class),
            integer(rs, "count"),
            integer(rs, "percent"),
            duration(rs, "window_ms"),
            duration(rs, "threshold_ms"),
            Channel.valueOf(rs.getString("channel").toUpperCase(Locale.ROOT)),
            rs.getString("url"),
            Duration.ofMillis(rs.getLong("cooldown_ms")));
    return new AlertRule(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        draft,
        instant(rs, "created_at"),
        instant(rs, "updated_at"));
  }

  static AlertDelivery delivery(ResultSet rs, StatementContext ctx) throws SQLException {
    return new AlertDelivery(
        rs.getLong("id"),
        rs.getObject("rule_id", UUID.class),
        rs.getObject("incident_id", UUID.class),
        rs.getString("subject"),
        rs.getString("kind"),
        rs.getString("dedup_key"),
        rs.getString("status"),
        rs.getInt("attempts"),
        instant(rs, "due_at"),
        instant(rs, "next_attempt_at"),
        instant(rs, "last_attempt_at"),
        integer(rs, "last_response"),
        rs.getString("last_error"),
        instant(rs, "sent_at"),
        instant(rs, "created_at"),
        Json.readTree(rs.getString("payload")));
  }
}
