package io.punctual.worker.complete;

import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.run.FinishedAttempt;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Attempts that ended and whose result is not written yet: queued in the completion batcher, or in
 * a batch it retries while PostgreSQL is unreachable. Their leases stay renewed meanwhile (and
 * their heartbeats reported when PostgreSQL answers), so the reaper does not rescue an attempt
 * whose result is on its way; an attempt leaves when its result is written or refused.
 */
public final class PendingResults {
  private final Set<Attempt> attempts = ConcurrentHashMap.newKeySet();

  /** How many of {@link #attempts} each job has (two after a pause: a stale one and a new one). */
  private final Map<UUID, Integer> jobs = new ConcurrentHashMap<>();

  void add(FinishedAttempt finished) {
    Attempt a = attemptOf(finished);
    if (attempts.add(a)) {
      jobs.merge(a.jobId(), 1, Integer::sum);
    }
  }

  void removeAll(Collection<FinishedAttempt> batch) {
    for (FinishedAttempt f : batch) {
      Attempt a = attemptOf(f);
      if (attempts.remove(a)) {
        jobs.computeIfPresent(a.jobId(), (id, n) -> n == 1 ? null : n - 1);
      }
    }
  }

  /** Whether {@code attempt} ended here and its result is not written yet. */
  public boolean contains(Attempt attempt) {
    return attempts.contains(attempt);
  }

  /** Whether an attempt of job {@code jobId} ended here and its result is not written yet. */
  public boolean holdsJob(UUID jobId) {
    return jobs.containsKey(jobId);
  }

  public List<Attempt> snapshot() {
    return List.copyOf(attempts);
  }

  private static Attempt attemptOf(FinishedAttempt f) {
    return new Attempt(f.job().id(), f.job().attempt());
  }
}
