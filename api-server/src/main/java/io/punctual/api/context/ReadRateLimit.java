package io.punctual.api.context;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads ({@code GET}, {@code HEAD}) are limited per API key: a token bucket per key of {@code
 * api.readsPerSecondPerKey} tokens a second and bursts of twice that, kept <b>in this API
 * process</b>. A read over it is a 429 {@code read-rate-exceeded} naming {@code Authorization},
 * with {@code Retry-After}, {@code RateLimit} and {@code RateLimit-Policy}
 * (draft-ietf-httpapi-ratelimit-headers, policy {@code "reads"}); an admitted read gets the last
 * two as well. Runs after the key and its role were checked, so only a key's own reads spend its
 * tokens; writes are not counted (submits have their namespaces' quotas).
 *
 * <p>Why in the process and not in Redis like the namespaces' submit quotas: a read is often one
 * indexed statement, and a Redis round trip per read would add to every one of them and make every
 * read depend on Redis; what the limit is for is to bound the work one key makes this process and
 * its PostgreSQL connections do, which a bucket of its own bounds exactly. The price: behind a load
 * balancer of N API processes a key may read up to N times the rate (set it for one process). Time
 * comes from the injected clock. With authentication off (no key) nothing is limited.
 */
@Priority(Priorities.AUTHORIZATION + 10)
public final class ReadRateLimit implements ContainerRequestFilter, ContainerResponseFilter {
  /** Most keys with a bucket; past it the buckets start over (full), as a key cache would. */
  static final int MAX_KEYS = 100_000;

  static final String POLICY = "\"reads\"";
  private static final String HEADERS = ReadRateLimit.class.getName() + ".headers";
  private static final long NANOS = 1_000_000_000L;

  private final double perSecond;
  private final double burst;
  private final String policy;
  private final Clock clock;
  private final Map<UUID, Bucket> buckets = new ConcurrentHashMap<>();
  private final Meter limited;

  /** {@code perSecond}: {@code api.readsPerSecondPerKey}, at least 1. */
  public ReadRateLimit(int perSecond, Clock clock, MetricRegistry metrics) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("readsPerSecondPerKey must be >= 1: " + perSecond);
    }
    this.perSecond = perSecond;
    this.burst = 2.0 * perSecond;
    this.policy = POLICY + ";q=" + (2L * perSecond) + ";w=2";
    this.clock = clock;
    this.limited = metrics.meter("punctual.api.readsLimited");
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String method = request.getMethod();
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      return;
    }
    UUID key =
        request.getProperty(RequestContext.PROPERTY) instanceof RequestContext context
            ? context.principal().keyId()
            : null;
    if (key == null) {
      return; // authentication off (or a route the authorizer did not resolve)
    }
    if (buckets.size() >= MAX_KEYS && !buckets.containsKey(key)) {
      buckets.clear();
    }
    Instant now = clock.instant();
    long nanos = now.getEpochSecond() * NANOS + now.getNano();
    Verdict verdict = buckets.computeIfAbsent(key, k -> new Bucket(burst, nanos)).take(nanos);
    if (verdict.admitted()) {
      request.setProperty(HEADERS, verdict);
      return;
    }
    limited.mark();
    long retry = Math.max(1, seconds(verdict.untilNext()));
    throw new ProblemException(
        Problem.of(
                429,
                "read-rate-exceeded",
                "Read rate exceeded",
                "This key may read "
                    + (long) perSecond
                    + " times a second from this API server (bursts of "
                    + (long) burst
                    + ", api.readsPerSecondPerKey); retry in "
                    + retry
                    + " s.")
            .withField("Authorization")
            .withHeader("Retry-After", Long.toString(retry))
            .withHeader("RateLimit-Policy", policy)
            .withHeader("RateLimit", POLICY + ";r=0;t=" + retry));
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (request.getProperty(HEADERS) instanceof Verdict verdict) {
      response.getHeaders().putSingle("RateLimit-Policy", policy);
      response
          .getHeaders()
          .putSingle(
              "RateLimit",
              POLICY + ";r=" + verdict.remaining() + ";t=" + seconds(verdict.untilFull()));
    }
  }

  /** Whole seconds of {@code nanos}, rounded up. */
  private static long seconds(double nanos) {
    return (long) Math.ceil(nanos / NANOS);
  }

  /** What a bucket answered: whole tokens left, and nanoseconds until the next and until full. */
  private record Verdict(boolean admitted, long remaining, double untilNext, double untilFull) {}

  /** One key's tokens, refilled lazily from the clock. */
  private final class Bucket {
    private double tokens;
    private long updated;

    Bucket(double tokens, long now) {
      this.tokens = tokens;
      this.updated = now;
    }

    synchronized Verdict take(long now) {
      if (now > updated) {
        tokens = Math.min(burst, tokens + (now - updated) * perSecond / NANOS);
        updated = now;
      }
      boolean admitted = tokens >= 1;
      if (admitted) {
        tokens -= 1;
      }
      double perToken = NANOS / perSecond;
      return new Verdict(
          admitted,
          (long) Math.floor(tokens),
          admitted ? 0 : (1 - tokens) * perToken,
          (burst - tokens) * perToken);
    }
  }
}
