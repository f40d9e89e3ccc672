package io.punctual.planner.plan;

import io.punctual.planner.plan.OccurrenceWriter.Materialised;
import io.punctual.queue.rate.SubmitRateLimiter;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Namespaces;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schedules' jobs count against their namespace's submit rate: after each planning transaction the
 * planner takes one token per job it materialised from the namespace's bucket (the one the API's
 * submits and retries draw on), in debt if need be ({@link SubmitRateLimiter#takeInDebt}). A fire
 * time is never dropped for the rate (its cadence is its definition's, set by an operator); the
 * namespace's own submits wait until the bucket has refilled past what its schedules used. Only
 * namespaces with a rate quota cost a Redis round trip; the limiter's connection is opened the
 * first time one does. If Redis does not answer, the jobs are not charged (logged).
 */
final class RateDebts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RateDebts.class);

  private final Namespaces namespaces;
  private final Supplier<SubmitRateLimiter> opener;
  private SubmitRateLimiter limiter;

  RateDebts(Namespaces namespaces, Supplier<SubmitRateLimiter> opener) {
    this.namespaces = namespaces;
    this.opener = opener;
  }

  /** Charges each namespace with a rate quota one token per job of {@code jobs} in it. */
  void charge(List<Materialised> jobs) {
    if (jobs.isEmpty()) {
      return;
    }
    Map<String, Integer> perNamespace = new TreeMap<>();
    for (Materialised m : jobs) {
      perNamespace.merge(m.entry().namespace(), 1, Integer::sum);
    }
    perNamespace.forEach(this::charge);
  }

  private void charge(String name, int count) {
    Optional<Namespace> ns = namespaces.find(name);
    if (ns.isEmpty() || !ns.get().quota().limitsRate()) {
      return;
    }
    try {
      limiter().takeInDebt(ns.get(), count);
    } catch (RuntimeException e) {
      log.warn("schedules' jobs not charged to the rate of namespace {}: {}", name, e.toString());
    }
  }

  private synchronized SubmitRateLimiter limiter() {
    if (limiter == null) {
      limiter = opener.get();
    }
    return limiter;
  }

  @Override
  public synchronized void close() {
    if (limiter != null) {
      limiter.close();
      limiter = null;
    }
  }
}
