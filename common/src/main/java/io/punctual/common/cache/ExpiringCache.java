package io.punctual.common.cache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Values read through a loader and kept for {@code ttl} of the injected clock, per key: what a
 * process reads of a setting that may change elsewhere (a namespace's signing secrets, its egress
 * grant) at most once per {@code ttl}. A load that throws caches nothing (the next call loads
 * again). Past {@code maxEntries} keys the cache starts over, so many keys cost loads, not memory.
 */
public final class ExpiringCache<K, V> {
  private final Clock clock;
  private final Duration ttl;
  private final int maxEntries;
  private final Map<K, Entry<V>> entries = new ConcurrentHashMap<>();

  private record Entry<V>(V value, Instant until) {}

  public ExpiringCache(Clock clock, Duration ttl, int maxEntries) {
    this.clock = clock;
    this.ttl = ttl;
    this.maxEntries = maxEntries;
  }

  /** The value of {@code key}: kept if read less than {@code ttl} ago, else {@code load}ed now. */
  public V get(K key, Function<? super K, ? extends V> load) {
    Instant now = clock.instant();
    Entry<V> entry = entries.get(key);
    if (entry != null && now.isBefore(entry.until())) {
      return entry.value();
    }
    V value = load.apply(key);
    if (entries.size() >= maxEntries) {
      entries.clear();
    }
    entries.put(key, new Entry<>(value, now.plus(ttl)));
    return value;
  }
}
