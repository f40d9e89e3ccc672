package io.punctual.store.limit;

import static io.punctual.store.sql.Columns.instant;

import io.punctual.model.JobId;
import io.punctual.store.sql.SqlFiles;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Limits and paused types in PostgreSQL (V14). The claim statement reads both on every claim, so a
 * change here takes effect at the next claim of any worker.
 */
public final class LimitStore {
  private static final SqlFiles SQL = new SqlFiles(LimitStore.class);

  private final Jdbi jdbi;
  private final Clock clock;

  public LimitStore(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  /**
   * Creates or replaces a limit (by namespace and name); returns it as stored.
   *
   * @throws TypeLimitedException when another limit of the namespace has its type
   */
  public Limit put(Limit limit) {
    Instant now = clock.instant();
    try {
      return jdbi.withHandle(
          h ->
              h.createQuery(SQL.get("put"))
                  .bind("namespace", limit.namespace())
                  .bind("name", limit.name())
                  .bind("type", limit.type())
                  .bind("key", limit.key())
                  .bind("concurrency", limit.concurrency())
                  .bind("rateLimit", limit.rate() == null ? null : limit.rate().limit())
                  .bind(
                      "ratePeriodMs",
                      limit.rate() == null ? null : limit.rate().period().toMillis())
                  .bind("rateBurst", limit.rate() == null ? null : limit.rate().burst())
                  .bind("slow", limit.slowKeyOnRetryAfter())
                  .bind("declared", limit.declared())
                  .bind("now", now)
                  .map(LimitStore::limit)
                  .one());
    } catch (UnableToExecuteStatementException e) {
      if (String.valueOf(e.getCause()).contains("limits_type_unique")) {
        String other =
            list(limit.namespace()).stream()
                .filter(l -> l.type().equals(limit.type()))
                .map(Limit::name)
                .findFirst()
                .orElse("?");
        throw new TypeLimitedException(limit.type(), other);
      }
      throw e;
    }
  }

  public Optional<Limit> find(String namespace, String name) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT * FROM limits WHERE namespace = :namespace AND name = :name")
                .bind("namespace", namespace)
                .bind("name", name)
                .map(LimitStore::limit)
                .findOne());
  }

  /** The limits of a namespace, by name. */
  public List<Limit> list(String namespace) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT * FROM limits WHERE namespace = :namespace ORDER BY name")
                .bind("namespace", namespace)
                .map(LimitStore::limit)
                .list());
  }

  /**
   * Deletes a limit; true if it existed. Slots its running attempts hold are given back as those
   * attempts end, as usual.
   */
  public boolean delete(String namespace, String name) {
    return jdbi.withHandle(
            h ->
                h.createUpdate("DELETE FROM limits WHERE namespace = :namespace AND name = :name")
                    .bind("namespace", namespace)
                    .bind("name", name)
                    .execute())
        > 0;
  }

  /** Pauses a type (idempotent): none of its jobs starts from the next claim on. */
  public void pause(String namespace, String type) {
    jdbi.useHandle(
        h ->
            h.createUpdate(
                    "INSERT INTO paused_types (namespace, type, paused_at)"
                        + " VALUES (:namespace, :type, :now) ON CONFLICT DO NOTHING")
                .bind("namespace", namespace)
                .bind("type", type)
                .bind("now", clock.instant())
                .execute());
  }

  /** Resumes a type; true if it was paused. */
  public boolean resume(String namespace, String type) {
    return jdbi.withHandle(
            h ->
                h.createUpdate(
                        "DELETE FROM paused_types WHERE namespace = :namespace AND type = :type")
                    .bind("namespace", namespace)
                    .bind("type", type)
                    .execute())
        > 0;
  }

  /** A paused type and since when. */
  public record Paused(String type, Instant pausedAt) {}

  public List<Paused> paused(String namespace) {
    return jdbi.withHandle(
        h ->
            h.createQuery(
                    "SELECT type, paused_at FROM paused_types WHERE namespace = :namespace"
                        + " ORDER BY type")
                .bind("namespace", namespace)
                .map((rs, ctx) -> new Paused(rs.getString("type"), instant(rs, "paused_at")))
                .list());
  }

  /**
   * A handler asked to rest: if the job's type has a limit with {@code slowKeyOnRetryAfter}, its
   * key starts nothing for {@code pause}; returns whether it did.
   */
  public boolean slowKeyOf(UUID jobId, String namespace, String type, Duration pause) {
    Instant until = clock.instant().plus(pause);
    return jdbi.inTransaction(
        h -> {
          Optional<String> key =
              h.createQuery(SQL.get("keyOf"))
                  .bind("id", jobId)
                  .bind("scheduledAt", JobId.scheduledAt(jobId))
                  .mapTo(String.class)
                  .findOne();
          if (key.isEmpty()) {
            return false;
          }
          h.createUpdate(SQL.get("slow"))
              .bind("namespace", namespace)
              .bind("type", type)
              .bind("key", key.get())
              .bind("until", until)
              .execute();
          return true;
        });
  }

  static Limit limit(ResultSet rs, StatementContext ctx) throws SQLException {
    int concurrency = rs.getInt("concurrency");
    Integer conc = rs.wasNull() ? null : concurrency;
    int rateLimit = rs.getInt("rate_limit");
    Limit.Rate rate =
        rs.wasNull()
            ? null
            : new Limit.Rate(
                rateLimit,
                Duration.ofMillis(rs.getLong("rate_period_ms")),
                rs.getInt("rate_burst"));
    return new Limit(
        rs.getString("namespace"),
        rs.getString("name"),
        rs.getString("type"),
        rs.getString("key_field"),
        conc,
        rate,
        rs.getBoolean("slow_key_on_retry_after"),
        rs.getBoolean("declared"),
        instant(rs, "created_at"),
        instant(rs, "updated_at"));
  }
}
