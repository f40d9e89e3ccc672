package io.punctual.api.auth;

import io.punctual.api.problem.Problems;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns an {@code Authorization} header into the {@link Principal} of its key, or refuses with 401.
 *
 * <p>A key verified once is trusted for {@code auth.cacheFor} (5 s by default) without reading
 * PostgreSQL again, so authentication costs a hash and a map lookup per request. The cache is keyed
 * by the SHA-256 of the secret, never the secret. Revoking a key through this server removes it
 * from the cache at once; other servers stop accepting it when their entry expires. Each cache miss
 * also records the key's {@code lastUsedAt} (at most once per period).
 */
public final class KeyAuthenticator {
  /** Most keys remembered; past it the cache starts over (a flood of keys costs reads, not RAM). */
  static final int MAX_CACHED = 10_000;

  private static final String SCHEME = "bearer ";
  private static final HexFormat HEX = HexFormat.of();

  private final ApiKeys keys;
  private final Clock clock;
  private final Duration cacheFor;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(Principal principal, Instant until) {}

  public KeyAuthenticator(ApiKeys keys, Clock clock, Duration cacheFor) {
    this.keys = keys;
    this.clock = clock;
    this.cacheFor = cacheFor;
  }

  /**
   * The principal of the key in {@code authorization} (the header's value).
   *
   * @throws io.punctual.api.problem.ProblemException 401 when the header is missing, not {@code
   *     Bearer}, or names no key that is valid now
   */
  public Principal authenticate(String authorization) {
    String secret = secretOf(authorization);
    byte[] hash = KeySecrets.sha256(secret);
    String cacheKey = HEX.formatHex(hash);
    Instant now = clock.instant();
    Cached cached = cache.get(cacheKey);
    if (cached != null && now.isBefore(cached.until())) {
      return cached.principal();
    }
    ApiKey key =
        keys.bySecret(KeySecrets.prefix(secret), hash)
            .orElseThrow(() -> Problems.unauthorized("The API key is not valid.", true));
    if (key.expiredAt(now)) {
      cache.remove(cacheKey);
      throw Problems.unauthorized("The API key has expired.", true);
    }
    keys.touch(key.id(), cacheFor);
    Instant until = now.plus(cacheFor);
    if (key.expiresAt() != null && key.expiresAt().isBefore(until)) {
      until = key.expiresAt();
    }
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(cacheKey, new Cached(key.principal(), until));
    return key.principal();
  }

  /** Forgets a key at once (this server revoked it). */
  public void forget(UUID keyId) {
    cache.values().removeIf(c -> keyId.equals(c.principal().keyId()));
  }

  private static String secretOf(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw Problems.unauthorized("This API needs a key: send Authorization: Bearer <key>.", false);
    }
    String value = authorization.trim();
    if (value.length() <= SCHEME.length()
        || !value.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
      throw Problems.unauthorized("Authorization must be Bearer <key>.", true);
    }
    String secret = value.substring(SCHEME.length()).trim();
    if (secret.isEmpty()
        || secret.length() > 512
        || !secret.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw Problems.unauthorized("The API key is not valid.", true);
    }
    return secret;
  }
}
