package io.punctual.queue.testing;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.store.Database;
import io.punctual.store.JobQueries;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobTransitions;
import io.punctual.store.PartitionManager;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.StoreStack;
import java.time.Clock;

/**
 * Everything a test needs against real servers: its own database and key prefix, the store, the
 * queue. Close it at the end of the test.
 */
public final class TestStack implements AutoCloseable {
  public final StoreStack store;
  public final PostgresSettings postgres;
  public final RedisSettings redisSettings;
  public final QueueSettings queueSettings = new QueueSettings();
  public final Database database;
  public final PartitionManager partitions;
  public final JobSubmissions submissions;
  public final JobTransitions transitions;
  public final JobQueries queries;
  public final RedisConnector redisClient;
  public final RedisConnection redis;
  public final RedisKeys keys;
  public final ReadyQueue queue;
  public final Clock clock;

  public TestStack(Clock clock) {
    this(clock, TestRedis.newRedis());
  }

  /** A stack on the given Redis (a cluster's, for instance) and a database of its own. */
  public TestStack(Clock clock, RedisSettings redisSettings) {
    this.clock = clock;
    this.store = new StoreStack(clock);
    this.postgres = store.postgres;
    this.database = store.database;
    this.partitions = store.partitions;
    this.submissions = store.submissions;
    this.transitions = store.transitions;
    this.queries = store.queries;
    this.redisSettings = redisSettings;
    this.redisClient = RedisConnector.create(redisSettings);
    this.redis = redisClient.connect();
    this.keys = new RedisKeys(redisSettings.keyPrefix, redisSettings.queueShards);
    this.queue = new ReadyQueue(redis, keys, queueSettings);
  }

  public TestStack() {
    this(Clock.systemUTC());
  }

  /**
   * What a FLUSHALL would do to this test, and only to it: deletes every key under its own prefix
   * (the Redis may be shared with other tests, or be a server the tests did not start).
   */
  public long deleteOwnRedisKeys() {
    return deleteOwnRedisKeys(redis, keys);
  }

  /** {@link #deleteOwnRedisKeys()} for any test's connection and key prefix. */
  public static long deleteOwnRedisKeys(RedisConnection redis, RedisKeys keys) {
    long deleted = 0;
    ScanArgs match = ScanArgs.Builder.matches(keys.prefix() + ":*").limit(1_000);
    KeyScanCursor<String> cursor = redis.sync().scan(match);
    while (true) {
      if (!cursor.getKeys().isEmpty()) {
        deleted += redis.sync().del(cursor.getKeys().toArray(String[]::new));
      }
      if (cursor.isFinished()) {
        return deleted;
      }
      cursor = redis.sync().scan(cursor, match);
    }
  }

  /** Closes the connections and drops this test's database. */
  @Override
  public void close() {
    redis.close();
    redisClient.close();
    store.close();
  }
}
