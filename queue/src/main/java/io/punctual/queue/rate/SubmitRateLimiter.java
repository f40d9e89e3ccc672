package io.punctual.queue.rate;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Quota;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The submit rate quota of namespaces: one token bucket per namespace, kept in Redis so that every
 * API server of a deployment draws on the same bucket. Bucket4j does the bucket (its Lettuce
 * backend: a read and a compare-and-swap of the bucket's state, retried on contention), with time
 * from the injected clock. Concurrent submits into one namespace share one compare-and-swap
 * (Bucket4j's batching): one each collided so often that 32 threads got about 600 through a second,
 * batched they got 20 000 and more. The key is {@link RedisKeys#submitRate}, in the namespace's
 * hash tag like its queues. A bucket left alone expires from Redis once it would be full again.
 *
 * <p>Only namespaces with a rate quota ever reach this class, so the submits of all other
 * namespaces pay no Redis round trip for it. The API takes tokens for submits and retries ({@link
 * #take}); the planner takes them for the jobs of schedules after the fact ({@link #takeInDebt}).
 */
public final class SubmitRateLimiter implements AutoCloseable {
  /** What the bucket answered. */
  public record Verdict(
      boolean admitted, long remaining, Duration untilAdmitted, Duration untilFull) {}

  private final StatefulConnection<String, byte[]> connection;
  private final ProxyManager<String> buckets;
  private final RedisKeys keys;
  private final Map<String, Versioned> proxies = new ConcurrentHashMap<>();

  private record Versioned(long version, BucketProxy bucket) {}

  public SubmitRateLimiter(RedisConnector client, RedisKeys keys, Clock clock, Duration timeout) {
    RedisCodec<String, byte[]> codec = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    Bucket4jLettuce.LettuceBasedProxyManagerBuilder<String> builder;
    if (client.isCluster()) {
      var cluster = client.clusterClient().connect(codec);
      this.connection = cluster;
      builder = Bucket4jLettuce.casBasedBuilder(cluster);
    } else {
      var standalone = client.standaloneClient().connect(codec);
      this.connection = standalone;
      builder = Bucket4jLettuce.casBasedBuilder(standalone);
    }
    this.keys = keys;
    this.buckets =
        builder
            .clientClock(new ClockTimeMeter(clock))
            .requestTimeout(timeout)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                    Duration.ofSeconds(10)))
            .build();
  }

  /**
   * Takes {@code tokens} from the namespace's bucket, all or none.
   *
   * @throws RuntimeException when Redis does not answer within the timeout
   */
  public Verdict take(Namespace namespace, int tokens) {
    ConsumptionProbe probe = bucket(namespace).tryConsumeAndReturnRemaining(tokens);
    return new Verdict(
        probe.isConsumed(),
        probe.getRemainingTokens(),
        Duration.ofNanos(probe.getNanosToWaitForRefill()),
        Duration.ofNanos(probe.getNanosToWaitForReset()));
  }

  /**
   * Takes {@code tokens} from the namespace's bucket whether or not it holds them: the bucket may
   * go below zero, and submits are refused until it has refilled past the debt. For work already
   * done that counts against the rate (the jobs a planner materialised for schedules).
   *
   * @throws RuntimeException when Redis does not answer within the timeout
   */
  public void takeInDebt(Namespace namespace, int tokens) {
    long unused = bucket(namespace).consumeIgnoringRateLimits(tokens);
  }

  /** The bucket of the namespace's current quota (one built under an older quota is replaced). */
  private BucketProxy bucket(Namespace namespace) {
    Versioned current = proxies.get(namespace.name());
    if (current != null && current.version() == namespace.quotaVersion()) {
      return current.bucket();
    }
    BucketConfiguration config = configuration(namespace.quota());
    BucketProxy bucket =
        buckets
            .builder()
            .withImplicitConfigurationReplacement(
                namespace.quotaVersion(), TokensInheritanceStrategy.AS_IS)
            .withOptimization(Optimizations.batching())
            .build(keys.submitRate(namespace.name()), () -> config);
    proxies.put(namespace.name(), new Versioned(namespace.quotaVersion(), bucket));
    return bucket;
  }

  static BucketConfiguration configuration(Quota quota) {
    return BucketConfiguration.builder()
        .addLimit(
            Bandwidth.builder()
                .capacity(quota.burst())
                .refillGreedy(quota.submitsPerSecond(), Duration.ofSeconds(1))
                .build())
        .build();
  }

  @Override
  public void close() {
    connection.close();
  }
}
