package io.punctual.queue.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.punctual.queue.config.RedisSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a process's queue Redis client is built from configuration: a standalone server
 * ({@code redis.url}) or a Redis Cluster ({@code redis.cluster}, a list of seed URIs), and the
 * connections made from it.
 *
 * <p>Both fail commands at once while disconnected instead of queueing them (loops back off and
 * retry; Redlock counts a down node as a "no"), with a command timeout of 5 s. The cluster client
 * refreshes its view of the slots every 10 s and at once on MOVED/ASK redirections, reconnects and
 * failed commands ("adaptive" refresh), so a failover or a slot migration is followed within
 * seconds; all reads and writes go to masters (a replica may lag, and the queue is read to be
 * written).
 */
public final class RedisConnector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  private final RedisClient standalone;
  private final RedisClusterClient cluster;

  private RedisConnector(RedisClient standalone, RedisClusterClient cluster) {
    this.standalone = standalone;
    this.cluster = cluster;
  }

  /** The client {@code settings} describe: a cluster when {@code redis.cluster} is set. */
  public static RedisConnector create(RedisSettings settings) {
    if (settings.isCluster()) {
      return cluster(settings.cluster);
    }
    return standalone(settings.url);
  }

  public static RedisConnector standalone(String url) {
    RedisClient client = RedisClient.create(url);
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
            .build());
    return new RedisConnector(client, null);
  }

  public static RedisConnector cluster(List<String> seeds) {
    List<RedisURI> uris = new ArrayList<>(seeds.size());
    for (String seed : seeds) {
      uris.add(RedisURI.create(seed));
    }
    RedisClusterClient client = RedisClusterClient.create(uris);
    client.setOptions(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(Duration.ofSeconds(10))
                    .enableAllAdaptiveRefreshTriggers()
                    .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                    .build())
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
            .build());
    return new RedisConnector(null, client);
  }

  public boolean isCluster() {
    return cluster != null;
  }

  /** A new connection (standalone, or to the whole cluster: routed by slot, reads from masters). */
  public RedisConnection connect() {
    if (cluster == null) {
      return RedisConnection.of(standalone.connect(Utf8Codec.INSTANCE));
    }
    StatefulRedisClusterConnection<String, String> connection = cluster.connect(Utf8Codec.INSTANCE);
    connection.setReadFrom(ReadFrom.UPSTREAM);
    return RedisConnection.of(connection);
  }

  /**
   * A pub/sub connection. On a cluster it subscribes on one node: a classic {@code PUBLISH} (what
   * the queue scripts send) reaches every node of the cluster, so one subscription hears all.
   */
  public StatefulRedisPubSubConnection<String, String> connectPubSub() {
    return cluster == null
        ? standalone.connectPubSub(Utf8Codec.INSTANCE)
        : cluster.connectPubSub(Utf8Codec.INSTANCE);
  }

  /** The standalone client; an exception on a cluster. */
  public RedisClient standaloneClient() {
    if (standalone == null) {
      throw new IllegalStateException("Redis is a cluster here: use clusterClient()");
    }
    return standalone;
  }

  /** The cluster client; an exception on a standalone Redis. */
  public RedisClusterClient clusterClient() {
    if (cluster == null) {
      throw new IllegalStateException("Redis is standalone here: use standaloneClient()");
    }
    return cluster;
  }

  /** Shuts the client down, waiting at most a few seconds (see {@link #shutDown}). */
  @Override
  public void close() {
    shutDown(cluster == null ? standalone : cluster);
  }

  /**
   * Shuts a Redis client down, waiting at most a few seconds: {@code shutdown()} waits without
   * bound for its event loops to end, and once in a while (seen with the io_uring transport) they
   * never report it, which hung a process on its way out (a known Lettuce issue,
   * redis/lettuce#2278, still open; other projects work around it the same way).
   */
  public static void shutDown(AbstractRedisClient client) {
    try {
      client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      log.warn("Redis client did not shut down within 5 s; going on without waiting for it");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.warn("Redis client shutdown failed: {}", e.getCause().toString());
    }
  }
}
