package io.punctual.queue.testing;

import io.punctual.queue.config.RedisSettings;
import io.punctual.store.testing.TestStores;

/** The tests' Redis server ({@link TestStores}) as settings. */
public final class TestRedis {
  private TestRedis() {}

  /** The test Redis server, with a key prefix no other test uses. */
  public static RedisSettings newRedis() {
    TestStores servers = TestStores.get();
    return new RedisSettings(servers.redisUrl(), servers.newKeyPrefix());
  }
}
