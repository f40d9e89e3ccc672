package io.punctual.api.namespaces;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.context.Authorizer;
import io.punctual.api.problem.Problem;
import io.punctual.api.problem.ProblemException;
import io.punctual.api.problem.Problems;
import io.punctual.common.json.Json;
import io.punctual.queue.rate.SubmitRateLimiter;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Quota;
import java.time.Duration;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every submit path asks before it stores anything (single and batch submits, the fast path,
 * workflows, schedule triggers): is the namespace active, and does the request fit its quotas? It
 * answers from {@link NamespaceCache}, so it costs a map lookup for a namespace without quotas; a
 * namespace with a rate quota pays one Redis round trip ({@link SubmitRateLimiter}). A request is
 * admitted or refused whole: a batch that would go over a quota stores nothing.
 *
 * <p>The checks, in order (the first that fails answers): the namespace is active (409 {@code
 * namespace-inactive}); every payload fits {@code maxPayloadBytes} (413 naming the payload); the
 * request fits {@code maxPending} (429 {@code pending-quota-exceeded}); the request fits the rate
 * (429 {@code rate-quota-exceeded} with {@code Retry-After}, {@code RateLimit} and {@code
 * RateLimit-Policy}; an admitted request gets the last two too, through {@link RateHeaders}, with
 * the tokens left and the seconds until the bucket is full again). A batch larger than the
 * namespace's burst or maxPending could never be admitted and is a 413 naming {@code jobs} instead.
 * If Redis does not answer, the rate is not enforced for that request (Redis is the speed, not the
 * truth; the submit goes on, as its enqueue would).
 */
public final class NamespaceGate {
  private static final Logger log = LoggerFactory.getLogger(NamespaceGate.class);

  /** The name of the rate policy in {@code RateLimit} and {@code RateLimit-Policy}. */
  static final String POLICY = "\"submits\"";

  private final NamespaceCache cache;
  private final SubmitRateLimiter limiter;
  private final Meter rateUnchecked;

  public NamespaceGate(NamespaceCache cache, SubmitRateLimiter limiter, MetricRegistry metrics) {
    this.cache = cache;
    this.limiter = limiter;
    this.rateUnchecked = metrics.meter("punctual.api.namespaces.rateUnchecked");
  }

  /**
   * Jobs admitted: closed when the request that stores them has ended (stored, refused or failed),
   * so that a refresh of the namespaces counting meanwhile does not forget them ({@link
   * NamespaceCache}).
   */
  public interface Admission extends AutoCloseable {
    /** Nothing to count (the namespace has no maxPending). */
    Admission NONE = () -> {};

    @Override
    void close();
  }

  /**
   * Admits {@code count} jobs into {@code namespace}, or throws the problem that refuses them all;
   * close the admission once the request that stores them has ended.
   *
   * @param payload the payload of job {@code i} (null: not checked against the quota)
   * @param prefix names job {@code i} in a problem's field ({@code "jobs[i]."}, or "")
   * @param rate receives the rate headers of the admitted request (for a rate quota only)
   * @throws ProblemException when refused
   */
  public Admission admit(
      String namespace,
      int count,
      IntFunction<JsonNode> payload,
      IntFunction<String> prefix,
      RateHeaders rate) {
    return admit(namespace, count, payload, i -> null, prefix, rate);
  }

  /**
   * {@link #admit(String, int, IntFunction, IntFunction, RateHeaders)}, with each job's own timeout
   * ({@code timeout}: null for none) checked against the namespace's {@code maxTimeout} (422 naming
   * the job's {@code timeout}).
   */
  public Admission admit(
      String namespace,
      int count,
      IntFunction<JsonNode> payload,
      IntFunction<Duration> timeout,
      IntFunction<String> prefix,
      RateHeaders rate) {
    NamespaceCache.Entry entry = cache.entry(namespace);
    Namespace ns = entry.namespace();
    requireActive(ns);
    Quota quota = ns.quota();
    if (!quota.limitsAnything()) {
      return Admission.NONE;
    }
    if (quota.limitsPayload()) {
      checkPayloads(quota.maxPayloadBytes(), count, payload, prefix);
    }
    if (quota.limitsTimeout()) {
      checkTimeouts(quota.maxTimeout(), count, timeout, prefix);
    }
    if (quota.limitsPending()) {
      checkPending(entry, quota.maxPending(), count);
    }
    if (quota.limitsRate()) {
      checkRate(ns, count, rate);
    }
    if (!quota.limitsPending()) {
      return Admission.NONE;
    }
    entry.admitting(count);
    return () -> entry.stored(count);
  }

  /** What the namespace's quotas say to the next batch of a bulk retry ({@link #roomFor}). */
  public sealed interface Room {
    /**
     * Retry (at most) this many jobs now: their rate tokens are taken; close {@code admission} once
     * the batch has ended.
     */
    record Take(int jobs, Admission admission) implements Room {
      /** A take that counts against no maxPending. */
      public Take(int jobs) {
        this(jobs, Admission.NONE);
      }
    }

    /** The rate bucket is empty: ask again after this long. */
    record Wait(Duration retryIn) implements Room {}

    /** The namespace is deactivated or holds its maxPending: the action stops, for this reason. */
    record Stop(String reason) implements Room {}
  }

  /**
   * How many of the next {@code wanted} jobs of a bulk retry in {@code namespace} its quotas admit
   * now: a bulk retry adds pending jobs like a submit, batch by batch. A batch is cut to the room
   * left under maxPending and to the burst, and takes its rate tokens (so submits and retries share
   * one bucket); an empty bucket says wait; a full namespace (or a deactivated one) says stop,
   * since only work elsewhere makes room. If Redis does not answer, the rate is not enforced for
   * that batch, as for a submit.
   */
  public Room roomFor(String namespace, int wanted) {
    NamespaceCache.Entry entry = cache.entry(namespace);
    Namespace ns = entry.namespace();
    if (!ns.active()) {
      return new Room.Stop("namespace " + ns.name() + " is deactivated");
    }
    Quota quota = ns.quota();
    int take = wanted;
    if (quota.limitsPending()) {
      long room = quota.maxPending() - entry.pending();
      if (room <= 0) {
        return new Room.Stop(
            "namespace "
                + ns.name()
                + " holds "
                + entry.pending()
                + " pending jobs, its quota.maxPending is "
                + quota.maxPending()
                + "; retry the rest once it has room");
      }
      take = (int) Math.min(take, room);
    }
    if (quota.limitsRate()) {
      take = Math.min(take, quota.burst());
      SubmitRateLimiter.Verdict verdict = takeTokens(ns, take);
      if (verdict != null && !verdict.admitted()) {
        return new Room.Wait(verdict.untilAdmitted());
      }
    }
    if (!quota.limitsPending()) {
      return new Room.Take(take);
    }
    int taken = take;
    entry.admitting(taken);
    return new Room.Take(taken, () -> entry.stored(taken));
  }

  /** Refuses (409) a request that would add anything to an inactive namespace. */
  public void requireActive(String namespace) {
    requireActive(cache.entry(namespace).namespace());
  }

  private static void requireActive(Namespace ns) {
    if (!ns.active()) {
      throw new ProblemException(
          Problem.of(
                  409,
                  "namespace-inactive",
                  "Namespace inactive",
                  "Namespace "
                      + ns.name()
                      + " is deactivated and takes no new jobs; reactivate it first.")
              .withField(Authorizer.NAMESPACE_HEADER));
    }
  }

  private static void checkPayloads(
      int max, int count, IntFunction<JsonNode> payload, IntFunction<String> prefix) {
    for (int i = 0; i < count; i++) {
      JsonNode p = payload.apply(i);
      if (p == null) {
        continue;
      }
      int size = size(p);
      if (size > max) {
        throw Problems.tooLarge(
            prefix.apply(i) + "payload",
            "The payload is " + size + " bytes; this namespace takes at most " + max + ".");
      }
    }
  }

  private static void checkTimeouts(
      Duration max, int count, IntFunction<Duration> timeout, IntFunction<String> prefix) {
    for (int i = 0; i < count; i++) {
      Duration t = timeout.apply(i);
      if (t != null && t.compareTo(max) > 0) {
        throw Problems.invalid(
            prefix.apply(i) + "timeout",
            "must be at most " + max + ", the namespace's quota.maxTimeout");
      }
    }
  }

  private static int size(JsonNode payload) {
    try {
      return Json.mapper().writeValueAsBytes(payload).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot measure payload", e);
    }
  }

  private void checkPending(NamespaceCache.Entry entry, long max, int count) {
    if (count > 1 && count > max) {
      throw neverFits("maxPending", max, count);
    }
    long pending = entry.pending();
    if (pending + count > max) {
      long retry = Math.max(1, seconds(cache.refresh()));
      throw new ProblemException(
          Problem.of(
                  429,
                  "pending-quota-exceeded",
                  "Pending quota exceeded",
                  "Namespace "
                      + entry.namespace().name()
                      + " holds "
                      + pending
                      + " pending jobs; its quota is "
                      + max
                      + ".")
              .withField("quota.maxPending")
              .withHeader("Retry-After", Long.toString(retry)));
    }
  }

  private void checkRate(Namespace ns, int count, RateHeaders rate) {
    Quota quota = ns.quota();
    if (count > quota.burst()) {
      throw neverFits("burst", quota.burst(), count);
    }
    SubmitRateLimiter.Verdict verdict = takeTokens(ns, count);
    if (verdict == null) {
      return;
    }
    if (verdict.admitted()) {
      // what the bucket's answer already says: no round trip of its own
      rate.set(
          policy(quota),
          POLICY + ";r=" + verdict.remaining() + ";t=" + seconds(verdict.untilFull()));
      return;
    }
    long retry = Math.max(1, seconds(verdict.untilAdmitted()));
    throw new ProblemException(
        Problem.of(
                429,
                "rate-quota-exceeded",
                "Rate quota exceeded",
                "Namespace "
                    + ns.name()
                    + " takes "
                    + quota.submitsPerSecond()
                    + " submits a second (bursts of "
                    + quota.burst()
                    + "); retry in "
                    + retry
                    + " s.")
            .withField("quota.submitsPerSecond")
            .withHeader("Retry-After", Long.toString(retry))
            .withHeader("RateLimit-Policy", policy(quota))
            .withHeader("RateLimit", POLICY + ";r=" + verdict.remaining() + ";t=" + retry));
  }

  /**
   * The namespace's bucket's answer to {@code count} tokens; null when Redis did not answer (the
   * rate is then not enforced for this request: counted and logged).
   */
  private SubmitRateLimiter.Verdict takeTokens(Namespace ns, int count) {
    try {
      return limiter.take(ns, count);
    } catch (RuntimeException e) {
      rateUnchecked.mark();
      log.warn("rate quota of namespace {} not checked (Redis): {}", ns.name(), e.toString());
      return null;
    }
  }

  /**
   * {@code RateLimit-Policy} (draft-ietf-httpapi-ratelimit-headers) of a token bucket: a quota of
   * {@code burst} submits over the window in which an empty bucket fills again.
   */
  static String policy(Quota quota) {
    long window = Math.max(1, ceilDiv(quota.burst(), quota.submitsPerSecond()));
    return POLICY + ";q=" + quota.burst() + ";w=" + window;
  }

  private static ProblemException neverFits(String limit, long max, int count) {
    return Problems.tooLarge(
        "jobs",
        "A request of "
            + count
            + " jobs can never fit this namespace's quota."
            + limit
            + " of "
            + max
            + "; send fewer at a time.");
  }

  /** Whole seconds, rounded up. */
  static long seconds(Duration d) {
    long s = d.getSeconds();
    return d.getNano() > 0 ? s + 1 : s;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
