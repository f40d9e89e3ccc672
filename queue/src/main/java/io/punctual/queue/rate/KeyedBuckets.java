package io.punctual.queue.rate;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Token buckets kept in this process, one per key: {@code perSecond} tokens a second in bursts of
 * twice that (Bucket4j, time from the injected clock). For limits that bound the work one caller
 * makes one process do, where a Redis round trip per request would cost more than the limit saves
 * (the API's reads per key, its refusals per source address); {@link SubmitRateLimiter} is the
 * shared one. Past {@code maxKeys} keys the map starts over, every bucket full again, so a flood of
 * keys costs buckets, not memory.
 */
public final class KeyedBuckets<K> {
  private final Bandwidth bandwidth;
  private final ClockTimeMeter time;
  private final int maxKeys;
  private final Map<K, Bucket> buckets = new ConcurrentHashMap<>();

  public KeyedBuckets(int perSecond, Clock clock, int maxKeys) {
    this.bandwidth =
        Bandwidth.builder()
            .capacity(2L * perSecond)
            .refillGreedy(perSecond, Duration.ofSeconds(1))
            .build();
    this.time = new ClockTimeMeter(clock);
    this.maxKeys = maxKeys;
  }

  /** The bucket of {@code key}, full when new. */
  public Bucket of(K key) {
    Bucket bucket = buckets.get(key);
    if (bucket != null) {
      return bucket;
    }
    if (buckets.size() >= maxKeys) {
      buckets.clear();
    }
    return buckets.computeIfAbsent(
        key, k -> Bucket.builder().addLimit(bandwidth).withCustomTimePrecision(time).build());
  }
}
