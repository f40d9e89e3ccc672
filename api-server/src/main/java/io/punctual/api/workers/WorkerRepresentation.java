package io.punctual.api.workers;

import io.punctual.store.registry.WorkerRegistry.RunningJob;
import io.punctual.store.registry.WorkerRegistry.WorkerView;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Predicate;

/** A worker in JSON; {@code status} is {@code alive}, {@code stale} or {@code stopped}. */
public record WorkerRepresentation(
    String id,
    String status,
    String host,
    long pid,
    List<String> namespaces,
    int concurrency,
    String heartbeatInterval,
    int running,
    Instant startedAt,
    Instant heartbeatAt,
    Instant stoppedAt,
    List<Job> jobs) {

  /** An attempt the worker runs now. */
  public record Job(UUID id, String type, int attempt, Instant startedAt, Instant heartbeatAt) {
    static Job of(RunningJob j) {
      return new Job(j.id(), j.type(), j.attempt(), j.startedAt(), j.heartbeatAt());
    }
  }

  /**
   * The worker as a caller sees it: {@code namespaces} holds only those {@code visible} accepts
   * (the namespaces the caller's key may act in).
   */
  public static WorkerRepresentation of(WorkerView w, Predicate<String> visible) {
    return new WorkerRepresentation(
        w.id(),
        w.status().name().toLowerCase(Locale.ROOT),
        w.host(),
        w.pid(),
        w.namespaces().stream().filter(visible).toList(),
        w.concurrency(),
        w.heartbeatInterval().toString(),
        w.running(),
        w.startedAt(),
        w.heartbeatAt(),
        w.stoppedAt(),
        w.jobs().stream().map(Job::of).toList());
  }
}
