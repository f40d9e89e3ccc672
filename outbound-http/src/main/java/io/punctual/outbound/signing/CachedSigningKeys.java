package io.punctual.outbound.signing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A namespace's secrets (their keys' bytes), read through {@code load} at most once per {@code ttl}
 * for each namespace: a secret made or deleted through the API signs, or stops signing, within
 * {@code ttl}. A read that fails is not cached (the next delivery tries again) and fails the
 * delivery, which is retried as any failed callback: nothing goes out unsigned.
 */
public final class CachedSigningKeys implements SigningKeys {
  /** How long a namespace's secrets are kept before they are read again. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(5);

  /** Most namespaces remembered; past it the cache starts over (bounded memory). */
  static final int MAX_CACHED = 10_000;

  private final Function<String, List<byte[]>> load;
  private final Clock clock;
  private final Duration ttl;
  private final Map<String, Entry> cache = new ConcurrentHashMap<>();

  private record Entry(List<SigningSecret> secrets, Instant until) {}

  public CachedSigningKeys(Function<String, List<byte[]>> load, Clock clock, Duration ttl) {
    this.load = load;
    this.clock = clock;
    this.ttl = ttl;
  }

  @Override
  public List<SigningSecret> of(String namespace) {
    Instant now = clock.instant();
    Entry entry = cache.get(namespace);
    if (entry != null && now.isBefore(entry.until())) {
      return entry.secrets();
    }
    List<SigningSecret> secrets = load.apply(namespace).stream().map(SigningSecret::ofKey).toList();
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(namespace, new Entry(secrets, now.plus(ttl)));
    return secrets;
  }
}
