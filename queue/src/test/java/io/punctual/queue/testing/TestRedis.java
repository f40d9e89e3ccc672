package io.punctual.queue.testing;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.testing.TestStores;

/**
 * The tests' Redis server ({@link TestStores}) as settings. On a server named by {@code
 * PUNCTUAL_TEST_REDIS_URL} (one the tests did not start), the keys of this JVM's prefixes are
 * deleted when it ends; nothing else there is touched.
 */
public final class TestRedis {
  private static boolean cleanUpRegistered;

  private TestRedis() {}

  /** The test Redis server, with a key prefix no other test uses. */
  public static synchronized RedisSettings newRedis() {
    TestStores servers = TestStores.get();
    if (!cleanUpRegistered && System.getenv("PUNCTUAL_TEST_REDIS_URL") != null) {
      cleanUpRegistered = true;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> deleteKeys(servers.redisUrl(), servers.runTag() + "_*"),
                  "test-redis-clean-up"));
    }
    return new RedisSettings(servers.redisUrl(), servers.newKeyPrefix());
  }

  private static void deleteKeys(String url, String pattern) {
    try (RedisClient client = RedisClient.create(url);
        StatefulRedisConnection<String, String> redis = client.connect()) {
      ScanArgs match = ScanArgs.Builder.matches(pattern).limit(1_000);
      KeyScanCursor<String> cursor = redis.sync().scan(match);
      while (true) {
        if (!cursor.getKeys().isEmpty()) {
          redis.sync().del(cursor.getKeys().toArray(String[]::new));
        }
        if (cursor.isFinished()) {
          break;
        }
        cursor = redis.sync().scan(cursor, match);
      }
    } catch (RuntimeException e) {
      System.err.println("test clean-up: could not delete this run's Redis keys: " + e);
    }
  }
}
