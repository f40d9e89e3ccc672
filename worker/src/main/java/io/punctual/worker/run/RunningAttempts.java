package io.punctual.worker.run;

import io.punctual.store.JobTransitions.Attempt;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** The attempts this worker is running now, by job id. */
public final class RunningAttempts {
  private final Map<UUID, RunningAttempt> byJob = new ConcurrentHashMap<>();

  public void add(RunningAttempt attempt) {
    byJob.put(attempt.job().id(), attempt);
  }

  public void remove(RunningAttempt attempt) {
    byJob.remove(attempt.job().id(), attempt);
  }

  /** Whether {@code attempt} (this very object) is still running. */
  public boolean contains(RunningAttempt attempt) {
    return byJob.get(attempt.job().id()) == attempt;
  }

  /** The attempt of job {@code jobId} running now, if any. */
  public java.util.Optional<RunningAttempt> of(UUID jobId) {
    return java.util.Optional.ofNullable(byJob.get(jobId));
  }

  /** Whether attempt {@code attempt} of its job is running here. */
  public boolean holds(Attempt attempt) {
    RunningAttempt a = byJob.get(attempt.jobId());
    return a != null && a.job().attempt() == attempt.attempt();
  }

  /** Whether job {@code attempt.jobId()} is running here under an attempt other than this one. */
  public boolean holdsOther(Attempt attempt) {
    RunningAttempt a = byJob.get(attempt.jobId());
    return a != null && a.job().attempt() != attempt.attempt();
  }

  /** Runs {@code action} on each attempt running now (a weakly consistent view, not a copy). */
  public void forEach(Consumer<RunningAttempt> action) {
    byJob.values().forEach(action);
  }

  public List<RunningAttempt> snapshot() {
    return List.copyOf(byJob.values());
  }

  public int size() {
    return byJob.size();
  }

  /** Asks every running attempt to stop; returns how many were asked. */
  public int stopAll(StopReason reason) {
    int n = 0;
    for (RunningAttempt a : byJob.values()) {
      if (a.stop(reason)) {
        n++;
      }
    }
    return n;
  }
}
