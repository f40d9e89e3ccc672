package io.punctual.api.context;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.github.bucket4j.ConsumptionProbe;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.queue.rate.KeyedBuckets;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.time.Clock;
import java.util.UUID;

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
 * balancer of N API processes a key may read up to N times the rate (set it for one process). The
 * buckets are {@link KeyedBuckets} (Bucket4j, time from the injected clock). With authentication
 * off (no key) nothing is limited.
 */
@Priority(Priorities.AUTHORIZATION + 10)
public final class ReadRateLimit implements ContainerRequestFilter, ContainerResponseFilter {
  /** Most keys with a bucket; past it the buckets start over (full), as a key cache would. */
  static final int MAX_KEYS = 100_000;

  static final String POLICY = "\"reads\"";
  private static final String HEADERS = ReadRateLimit.class.getName() + ".headers";
  private static final long NANOS = 1_000_000_000L;

  private final int perSecond;
  private final String policy;
  private final KeyedBuckets<UUID> buckets;
  private final Meter limited;

  /** {@code perSecond}: {@code api.readsPerSecondPerKey}, at least 1. */
  public ReadRateLimit(int perSecond, Clock clock, MetricRegistry metrics) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("readsPerSecondPerKey must be >= 1: " + perSecond);
    }
    this.perSecond = perSecond;
    this.policy = POLICY + ";q=" + (2L * perSecond) + ";w=2";
    this.buckets = new KeyedBuckets<>(perSecond, clock, MAX_KEYS);
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
    ConsumptionProbe probe = buckets.of(key).tryConsumeAndReturnRemaining(1);
    if (probe.isConsumed()) {
      request.setProperty(HEADERS, probe);
      return;
    }
    limited.mark();
    long retry = Math.max(1, seconds(probe.getNanosToWaitForRefill()));
    throw new ProblemException(
        Problem.of(
                429,
                "read-rate-exceeded",
                "Read rate exceeded",
                "This key may read "
                    + perSecond
                    + " times a second from this API server (bursts of "
                    + 2L * perSecond
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
    if (request.getProperty(HEADERS) instanceof ConsumptionProbe probe) {
      response.getHeaders().putSingle("RateLimit-Policy", policy);
      response
          .getHeaders()
          .putSingle(
              "RateLimit",
              POLICY
                  + ";r="
                  + probe.getRemainingTokens()
                  + ";t="
                  + seconds(probe.getNanosToWaitForReset()));
    }
  }

  /** Whole seconds of {@code nanos}, rounded up. */
  private static long seconds(long nanos) {
    return (nanos + NANOS - 1) / NANOS;
  }
}
