package io.punctual.queue;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import java.time.Instant;
import java.util.Collection;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Listens for "a job is due at T" announcements so a waiting worker wakes up for a job due sooner
 * than what it sleeps towards, instead of polling; and for cancels of running attempts ({@link
 * CancelNotice}), so a cancel interrupts its handler at once. Lettuce re-subscribes after a
 * reconnect.
 *
 * <p>On a Redis Cluster the scripts send a classic {@code PUBLISH}, which the cluster forwards to
 * every node, so a subscription on any one node hears the wake-ups of every shard. (Sharded
 * pub/sub, {@code SPUBLISH}, would reach only the nodes of the channel's slot and needs Redis 7;
 * the embedded Redis of tests and the dev mode is 6.2.) Both are latency hints only: a worker that
 * misses a wake-up still claims at its next poll, one that misses a cancel learns it at its next
 * heartbeat.
 */
public final class WakeListener implements AutoCloseable {
  private final StatefulRedisPubSubConnection<String, String> connection;

  private WakeListener(StatefulRedisPubSubConnection<String, String> connection) {
    this.connection = connection;
  }

  /**
   * Subscribes to the wake channels of {@code namespaces}; {@code onWake} gets the namespace and
   * the announced due time.
   */
  public static WakeListener subscribe(
      RedisConnector client,
      RedisKeys keys,
      Collection<String> namespaces,
      BiConsumer<String, Instant> onWake) {
    return subscribe(client, keys, namespaces, onWake, notice -> {});
  }

  /**
   * {@link #subscribe(RedisConnector, RedisKeys, Collection, BiConsumer)}, and to the cancel
   * channel: {@code onCancel} gets each {@link CancelNotice} (on Lettuce's event loop: it must not
   * block).
   */
  public static WakeListener subscribe(
      RedisConnector client,
      RedisKeys keys,
      Collection<String> namespaces,
      BiConsumer<String, Instant> onWake,
      Consumer<CancelNotice> onCancel) {
    String cancels = keys.cancelChannel();
    StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub();
    java.util.Map<String, String> namespaceByChannel = new java.util.HashMap<>();
    for (String ns : namespaces) {
      namespaceByChannel.put(keys.wakeChannel(ns), ns);
    }
    connection.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            if (channel.equals(cancels)) {
              CancelNotice.decode(message).forEach(onCancel);
              return;
            }
            String namespace = namespaceByChannel.get(channel);
            if (namespace != null) {
              try {
                onWake.accept(namespace, Instant.ofEpochMilli(Long.parseLong(message)));
              } catch (NumberFormatException ignored) {
                // not one of ours
              }
            }
          }
        });
    java.util.List<String> channels = new java.util.ArrayList<>(namespaceByChannel.keySet());
    channels.add(cancels);
    connection.sync().subscribe(channels.toArray(String[]::new));
    return new WakeListener(connection);
  }

  @Override
  public void close() {
    connection.close();
  }
}
