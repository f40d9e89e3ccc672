package io.punctual.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.model.JobState;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.TestStores;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * An application's setting, on the tests' servers: a fresh database (Punctual's schema migrated)
 * behind the application's own pool, a Redis key prefix of its own, {@link PunctualJobs} on them,
 * and embedded workers built on demand. Closes them all, then the pool, then drops the database.
 */
final class EmbeddedHarness implements AutoCloseable {
  final PostgresSettings postgres;
  final RedisSettings redis;
  final HikariDataSource appPool;
  final PunctualJobs jobs;
  private final List<AutoCloseable> opened = new ArrayList<>();

  EmbeddedHarness() {
    this.postgres = TestStores.get().newDatabase();
    this.redis = TestRedis.newRedis();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(postgres.url);
    config.setUsername(postgres.user);
    config.setPassword(postgres.password);
    config.setMaximumPoolSize(12);
    config.setPoolName("the-app");
    this.appPool = new HikariDataSource(config);
    this.jobs =
        PunctualJobs.builder().dataSource(appPool).redis(redis).clock(Clock.systemUTC()).build();
  }

  /** A worker builder on the application's pool and this test's Redis. */
  PunctualWorker.Builder worker() {
    return PunctualWorker.builder()
        .dataSource(appPool)
        .redis(redis)
        .clock(Clock.systemUTC())
        .shutdownGrace(java.time.Duration.ofSeconds(10));
  }

  /** Builds and starts a worker; closed with the harness. */
  PunctualWorker startWorker(PunctualWorker.Builder builder) {
    PunctualWorker worker = builder.build();
    opened.add(worker);
    worker.start();
    return worker;
  }

  /** Rows of {@code jobs} in the database (of any status). */
  long jobCount() throws SQLException {
    try (Connection c = appPool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT count(*) FROM jobs");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** A job's status, or null when there is no such job. */
  JobState status(UUID id) throws SQLException {
    try (Connection c = appPool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT status FROM jobs WHERE id = ?")) {
      s.setObject(1, id);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? JobState.valueOf(rs.getString(1)) : null;
      }
    }
  }

  /** Whether a promoter has finished a pass (its cursor is in Redis). */
  boolean promoterCursorWritten() {
    return onRedis((c, keys) -> c.sync().exists(keys.promoterCursor()) == 1);
  }

  /** Members of every queue of the {@code default} namespace in Redis. */
  long queued(UUID id) {
    return onRedis(
        (c, keys) -> {
          long n = 0;
          for (int shard = 0; shard < redis.queueShards; shard++) {
            for (String queue : keys.queues("default", shard)) {
              if (c.sync().zscore(queue, id.toString()) != null) {
                n++;
              }
            }
          }
          return n;
        });
  }

  /** {@code read} on a connection of its own to this test's Redis, with its keys. */
  private <T> T onRedis(BiFunction<RedisConnection, RedisKeys, T> read) {
    try (RedisConnector client = RedisConnector.create(redis);
        RedisConnection c = client.connect()) {
      return read.apply(c, new RedisKeys(redis.keyPrefix, redis.queueShards));
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    jobs.close();
    appPool.close();
    TestStores.get().dropDatabase(postgres);
  }
}
