package io.punctual.bench;

import io.lettuce.core.RedisClient;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.queue.redis.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Independent embedded Redis servers for Redlock leases (none when asked for zero). */
final class LockNodes implements AutoCloseable {
  private final List<EmbeddedRedisServer> servers;

  private LockNodes(List<EmbeddedRedisServer> servers) {
    this.servers = servers;
  }

  static LockNodes start(int n) {
    List<EmbeddedRedisServer> servers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      servers.add(EmbeddedRedisServer.start(null));
    }
    return new LockNodes(servers);
  }

  List<String> urls() {
    return servers.stream().map(EmbeddedRedisServer::url).toList();
  }

  /**
   * Marks each node as having kept its data for {@code age} (the marker Redlock's restart delay
   * reads, by the node's clock), as a node in service for long would have.
   */
  static void agedBy(List<String> urls, String keyPrefix, Duration age) {
    String marker = new RedisKeys(keyPrefix).leaseNodeDataSince();
    for (String url : urls) {
      RedisClient client = RedisClient.create(url);
      try (var c = client.connect()) {
        List<String> time = c.sync().time();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        c.sync().set(marker, Long.toString(nowMs - age.toMillis()));
      } finally {
        client.shutdown();
      }
    }
  }

  @Override
  public void close() {
    servers.forEach(EmbeddedRedisServer::close);
  }
}
