package io.punctual.testing;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.redis.RedisConnection;
import io.punctual.common.redis.RedisConnector;
import io.punctual.common.redis.RedisKeys;
import io.punctual.common.store.Database;
import io.punctual.common.store.JobQueries;
import io.punctual.common.store.JobSubmissions;
import io.punctual.common.store.JobTransitions;
import io.punctual.common.store.PartitionManager;
import java.time.Clock;

/**
 * Everything a test needs against real servers: its own database and key prefix, the store, the
 * queue. Close it at the end of the test.
 */
public final class TestStack implements AutoCloseable {
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
    this(clock, TestStores.get().newRedis());
  }

  /** A stack on the given Redis (a cluster's, for instance) and a database of its own. */
  public TestStack(Clock clock, RedisSettings redisSettings) {
    this.clock = clock;
    TestStores stores = TestStores.get();
    this.postgres = stores.newDatabase();
    this.redisSettings = redisSettings;
    this.database = Database.connect(postgres, "test");
    this.partitions = new PartitionManager(database.jdbi(), clock, 3);
    partitions.ensureAhead();
    this.submissions = new JobSubmissions(database.jdbi(), partitions, clock);
    this.transitions = new JobTransitions(database.jdbi(), submissions, clock);
    this.queries = new JobQueries(database.jdbi());
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
    database.close();
    TestStores.get().dropDatabase(postgres);
  }
}
