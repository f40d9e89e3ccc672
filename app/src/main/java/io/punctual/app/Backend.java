package io.punctual.app;

import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.Database;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an embedded piece of Punctual finds its data, as its builder was told: PostgreSQL (the
 * app's own {@link DataSource}, left open at close, or a pool Punctual opens from {@link
 * PostgresSettings}), Redis, the queue's settings and the clock. Opens the {@link Stores}.
 */
final class Backend {
  private static final Logger log = LoggerFactory.getLogger(Backend.class);

  /** PostgreSQL's "undefined_function": the schema (punctual_ensure_partitions) is not there. */
  private static final String UNDEFINED_FUNCTION = "42883";

  DataSource dataSource;
  PostgresSettings postgres;
  RedisSettings redis = new RedisSettings();
  QueueSettings queue = new QueueSettings();
  Clock clock;
  boolean migrate;

  void redisUrl(String url) {
    redis.url = Objects.requireNonNull(url, "redisUrl");
  }

  void keyPrefix(String prefix) {
    redis.keyPrefix = Objects.requireNonNull(prefix, "keyPrefix");
  }

  /**
   * The stores, named {@code name} (the pool Punctual opens, if it opens one). With {@code migrate}
   * the schema is migrated first; without, a database with no Punctual schema fails the build,
   * while one that cannot be reached is logged and waited for (as the roles do).
   */
  Stores open(String name) {
    if (clock == null) {
      throw new IllegalStateException(
          "clock is required: Punctual reads time only from the clock it is given"
              + " (Clock.systemUTC() in production, a controllable one in tests)");
    }
    if ((dataSource == null) == (postgres == null)) {
      throw new IllegalStateException("give either dataSource(...) or postgres(...), not both");
    }
    Database database =
        dataSource != null ? Database.on(dataSource) : Database.connect(postgres, name);
    int daysAhead = (postgres != null ? postgres : new PostgresSettings()).partitionDaysAhead;
    Stores stores;
    try {
      if (migrate) {
        Migrations.migrate(database.dataSource());
      }
      stores = new Stores(database, daysAhead, redis, queue, clock);
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
    try {
      checkSchema(stores);
    } catch (RuntimeException e) {
      stores.close();
      throw e;
    }
    return stores;
  }

  /**
   * PostgreSQL (a connection that is valid) and Redis (a {@code PING}), each within {@code
   * timeout}; {@code claimLoop} is the worker's, or null.
   */
  static PunctualHealth health(Stores stores, Boolean claimLoop, Duration timeout) {
    Map<String, String> problems = new LinkedHashMap<>();
    boolean postgres = false;
    try (Connection c = stores.database().dataSource().getConnection()) {
      postgres = c.isValid((int) Math.max(1, timeout.toSeconds()));
      if (!postgres) {
        problems.put("postgres", "connection not valid");
      }
    } catch (SQLException | RuntimeException e) {
      problems.put("postgres", e.toString());
    }
    boolean redis = false;
    try {
      redis =
          "PONG"
              .equals(stores.redis().async().ping().get(timeout.toMillis(), TimeUnit.MILLISECONDS));
      if (!redis) {
        problems.put("redis", "no PONG");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problems.put("redis", e.toString());
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      problems.put("redis", e.toString());
    }
    if (Boolean.FALSE.equals(claimLoop)) {
      problems.put("claimLoop", "not running");
    }
    return new PunctualHealth(postgres, redis, claimLoop, problems);
  }

  private static void checkSchema(Stores stores) {
    try {
      stores.partitions().ensureAhead();
    } catch (RuntimeException e) {
      if (UNDEFINED_FUNCTION.equals(sqlState(e))) {
        throw new IllegalStateException(
            "the PostgreSQL database has no Punctual schema: run `punctual migrate` on it, or"
                + " build with migrate(true)",
            e);
      }
      log.warn("PostgreSQL not usable at start-up, going on: {}", e.toString());
    }
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
