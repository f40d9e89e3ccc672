package io.punctual.api.auth;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.api.config.AuthSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns an {@code Authorization} header into the {@link Principal} of its key, or refuses with 401
 * (a {@link KeyRefusal}).
 *
 * <p>A key verified once is trusted for {@code auth.cacheFor} (5 s by default) without reading
 * PostgreSQL again, so authentication costs a hash and a map lookup per request. The cache is keyed
 * by the SHA-256 of the secret, never the secret. Revoking a key through this server removes it
 * from the cache at once; other servers stop accepting it when their entry expires. Each cache miss
 * also records the key's {@code lastUsedAt} (at most once per period).
 *
 * <p>A refusal costs no PostgreSQL read per request either, within {@code auth.unknownKeysFor} (2 s
 * by default; zero turns both of these off):
 *
 * <ul>
 *   <li>A key read and refused (unknown, revoked, expired) is remembered as refused for that long,
 *       by the SHA-256 of its secret, so a client repeating it costs one read per period.
 *   <li>The public prefixes of the keys not revoked are read as one set, at most once per period
 *       and only when a key of a prefix not in the set arrives; a key whose prefix is not in a set
 *       read within the period is refused without reading it. Random keys (a flood, a brute force)
 *       thus cost one read of the prefixes per period in all, whatever their number.
 * </ul>
 *
 * The price: a key created through <em>another</em> server may be refused here for up to {@code
 * auth.unknownKeysFor} after its creation (when this server read the prefixes within that time
 * before it, or was shown the same secret). A key created through this server works here at once
 * ({@link #created}).
 */
public final class KeyAuthenticator {
  /** Most keys remembered; past it the cache starts over (a flood of keys costs reads, not RAM). */
  static final int MAX_CACHED = 10_000;

  private static final String SCHEME = "bearer ";
  private static final HexFormat HEX = HexFormat.of();

  private final ApiKeys keys;
  private final Clock clock;
  private final Duration cacheFor;
  private final Duration unknownFor;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private final Map<String, Refused> refused = new ConcurrentHashMap<>();
  private final Object prefixLock = new Object();
  private final Meter keyReads;
  private final Meter prefixReads;
  private final Meter refusedUnread;
  private volatile Prefixes prefixes;

  private record Cached(Principal principal, Instant until) {}

  private record Refused(KeyRefusal refusal, Instant until) {}

  /** The prefixes of the keys not revoked, as read at {@code readAt} (plus those created here). */
  private record Prefixes(Set<String> known, Instant readAt) {}

  public KeyAuthenticator(
      ApiKeys keys, Clock clock, AuthSettings settings, MetricRegistry metrics) {
    this.keys = keys;
    this.clock = clock;
    this.cacheFor = settings.cacheFor;
    this.unknownFor = settings.unknownKeysFor;
    this.keyReads = metrics.meter("punctual.auth.keyReads");
    this.prefixReads = metrics.meter("punctual.auth.prefixReads");
    this.refusedUnread = metrics.meter("punctual.auth.refusedUnread");
  }

  /**
   * The principal of the key in {@code authorization} (the header's value).
   *
   * @throws io.punctual.api.problem.ProblemException 401 when the header is missing, not {@code
   *     Bearer}, or names no key that is valid now ({@link KeyRefusal#of} tells which)
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
    if (!unknownFor.isZero()) {
      Refused known = refused.get(cacheKey);
      if (known != null && now.isBefore(known.until())) {
        refusedUnread.mark();
        throw known.refusal().exception();
      }
      if (!mayExist(KeySecrets.prefix(secret), now)) {
        refusedUnread.mark();
        throw KeyRefusal.UNKNOWN_KEY.exception();
      }
    }
    keyReads.mark();
    ApiKey key = keys.bySecret(KeySecrets.prefix(secret), hash).orElse(null);
    if (key == null || key.expiredAt(now)) {
      cache.remove(cacheKey);
      KeyRefusal refusal = key == null ? KeyRefusal.UNKNOWN_KEY : KeyRefusal.EXPIRED_KEY;
      remember(cacheKey, refusal, now);
      throw refusal.exception();
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

  /**
   * A key was created through this server with {@code secret}: it works here at once, even if its
   * secret or prefix was refused a moment ago.
   */
  public void created(String secret) {
    refused.remove(HEX.formatHex(KeySecrets.sha256(secret)));
    synchronized (prefixLock) {
      Prefixes current = prefixes;
      if (current != null) {
        current.known().add(KeySecrets.prefix(secret));
      }
    }
  }

  /**
   * Whether a key of {@code prefix} may exist: in the set of prefixes, read again first if it is
   * older than {@code auth.unknownKeysFor} (by one thread; the others wait for its answer).
   */
  private boolean mayExist(String prefix, Instant now) {
    Prefixes current = prefixes;
    if (current != null
        && (current.known().contains(prefix) || now.isBefore(current.readAt().plus(unknownFor)))) {
      return current.known().contains(prefix);
    }
    synchronized (prefixLock) {
      current = prefixes;
      if (current == null || !now.isBefore(current.readAt().plus(unknownFor))) {
        prefixReads.mark();
        Set<String> known = ConcurrentHashMap.newKeySet();
        known.addAll(keys.prefixes());
        current = new Prefixes(known, now);
        prefixes = current;
      }
      return current.known().contains(prefix);
    }
  }

  private void remember(String cacheKey, KeyRefusal refusal, Instant now) {
    if (unknownFor.isZero()) {
      return;
    }
    if (refused.size() >= MAX_CACHED) {
      refused.clear();
    }
    refused.put(cacheKey, new Refused(refusal, now.plus(unknownFor)));
  }

  private static String secretOf(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw KeyRefusal.NO_KEY.exception();
    }
    String value = authorization.trim();
    if (value.length() <= SCHEME.length()
        || !value.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
      throw KeyRefusal.NOT_BEARER.exception();
    }
    String secret = value.substring(SCHEME.length()).trim();
    if (secret.isEmpty()
        || secret.length() > 512
        || !secret.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw KeyRefusal.UNKNOWN_KEY.exception();
    }
    return secret;
  }
}
