package io.punctual.outbound.signing;

import io.punctual.common.cache.ExpiringCache;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
  private final ExpiringCache<String, List<SigningSecret>> cache;

  public CachedSigningKeys(Function<String, List<byte[]>> load, Clock clock, Duration ttl) {
    this.load = load;
    this.cache = new ExpiringCache<>(clock, ttl, MAX_CACHED);
  }

  @Override
  public List<SigningSecret> of(String namespace) {
    return cache.get(namespace, ns -> load.apply(ns).stream().map(SigningSecret::ofKey).toList());
  }
}
