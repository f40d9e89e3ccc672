package io.punctual.api.diagnosis;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.JobQueries;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.registry.WorkerRegistry;
import io.punctual.store.registry.WorkerRegistry.LiveWorker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Why a job is where it is: for a PENDING job every reason that keeps it from running now (due
 * later, namespace deactivated, no live worker for its namespace or its type, and what the {@link
 * HoldCheck}s add), or READY when none is found; for a BLOCKED one the jobs it still waits for; for
 * a RUNNING or final one what it is doing or how it ended.
 */
public final class Diagnoser {
  /** A job due within this is not "due later": the claim takes it ahead of its time anyway. */
  static final Duration DUE_SLACK = Duration.ofSeconds(1);

  private final JobQueries jobs;
  private final WorkerRegistry workers;
  private final Namespaces namespaces;
  private final List<HoldCheck> holds;
  private final Clock clock;

  public Diagnoser(
      JobQueries jobs,
      WorkerRegistry workers,
      Namespaces namespaces,
      List<HoldCheck> holds,
      Clock clock) {
    this.jobs = jobs;
    this.workers = workers;
    this.namespaces = namespaces;
    this.holds = List.copyOf(holds);
    this.clock = clock;
  }

  public Diagnosis diagnose(Job job) {
    List<Reason> reasons =
        switch (job.status()) {
          case PENDING -> pending(job);
          case BLOCKED -> blocked(job);
          case RUNNING -> List.of(running(job));
          case SUCCEEDED, FAILED, CANCELLED, SKIPPED -> List.of(ended(job));
        };
    return new Diagnosis(job.id().toString(), job.status().name(), reasons);
  }

  private List<Reason> pending(Job job) {
    List<Reason> reasons = new ArrayList<>();
    Instant now = clock.instant();
    if (job.runAt().isAfter(now.plus(DUE_SLACK))) {
      reasons.add(
          new Reason(
                  "DUE_LATER",
                  "It is due at "
                      + job.runAt()
                      + (job.attempt() > 0 ? " (retry after attempt " + job.attempt() + ")" : "")
                      + "; it will not run before.")
              .with("dueAt", job.runAt().toString())
              .with("attempt", job.attempt()));
    }
    reasons.addAll(workersFor(job));
    for (HoldCheck hold : holds) {
      reasons.addAll(hold.reasons(job));
    }
    if (reasons.isEmpty()) {
      reasons.add(
          new Reason(
                  "READY",
                  "It is due and nothing found holds it: a live worker serving its namespace and"
                      + " type should claim it shortly (attempt "
                      + (job.attempt() + 1)
                      + " of "
                      + job.maxAttempts()
                      + ").")
              .with("attempt", job.attempt() + 1)
              .with("maxAttempts", job.maxAttempts()));
    }
    return reasons;
  }

  /** The reasons about the namespace's state and the workers serving it, for a PENDING job. */
  private List<Reason> workersFor(Job job) {
    List<Reason> reasons = new ArrayList<>();
    String namespace = job.namespace();
    Namespace ns = namespaces.find(namespace).orElse(Namespace.implicit(namespace));
    if (!ns.active()) {
      reasons.add(
          new Reason(
                  "NAMESPACE_INACTIVE",
                  "Its namespace "
                      + namespace
                      + " is deactivated: workers claim none of its jobs until it is reactivated.")
              .with("namespace", namespace)
              .with("since", ns.deactivatedAt() == null ? null : ns.deactivatedAt().toString()));
    }
    List<LiveWorker> live = workers.live(namespace);
    if (live.isEmpty()) {
      reasons.add(
          new Reason(
                  "NO_LIVE_WORKER_FOR_NAMESPACE",
                  "No live worker serves namespace " + namespace + ".")
              .with("namespace", namespace));
      return reasons;
    }
    boolean someUnknown = live.stream().anyMatch(w -> w.types() == null);
    boolean someHandles =
        live.stream().anyMatch(w -> w.types() != null && w.types().contains(job.type()));
    if (!someUnknown && !someHandles) {
      reasons.add(
          new Reason(
                  "NO_WORKER_FOR_TYPE",
                  "None of the "
                      + live.size()
                      + " live workers serving namespace "
                      + namespace
                      + " has a handler for type "
                      + job.type()
                      + ".")
              .with("namespace", namespace)
              .with("type", job.type())
              .with("workers", live.size()));
    }
    return reasons;
  }

  private List<Reason> blocked(Job job) {
    Map<UUID, JobState> waiting = jobs.waitingFor(job.namespace(), job.id());
    if (waiting.isEmpty()) {
      return List.of(
          new Reason(
              "WAITING_FOR_DEPENDENCIES",
              "It waits for the jobs it depends on; all of them have ended, and it moves on in"
                  + " the transaction judging the last end."));
    }
    List<String> ids = waiting.keySet().stream().map(UUID::toString).toList();
    return List.of(
        new Reason(
                "WAITING_FOR_DEPENDENCIES",
                "It waits for " + ids.size() + " job(s) to end: " + String.join(", ", ids) + ".")
            .with("jobIds", ids)
            .with(
                "states",
                waiting.entrySet().stream()
                    .collect(
                        java.util.stream.Collectors.toMap(
                            e -> e.getKey().toString(),
                            e -> e.getValue().name(),
                            (a, b) -> a,
                            java.util.LinkedHashMap::new))));
  }

  private static Reason running(Job job) {
    return new Reason(
            "RUNNING",
            "Attempt "
                + job.attempt()
                + " of "
                + job.maxAttempts()
                + " runs on worker "
                + job.workerId()
                + " since "
                + job.startedAt()
                + " (last heartbeat "
                + job.heartbeatAt()
                + ").")
        .with("attempt", job.attempt())
        .with("workerId", job.workerId())
        .with("startedAt", job.startedAt() == null ? null : job.startedAt().toString())
        .with("heartbeatAt", job.heartbeatAt() == null ? null : job.heartbeatAt().toString());
  }

  private static Reason ended(Job job) {
    boolean retryable = job.status() != JobState.SUCCEEDED;
    return new Reason(
            "FINAL",
            "It ended "
                + job.status()
                + " at "
                + job.finishedAt()
                + " after "
                + job.attempt()
                + " attempt(s)"
                + (job.lastError() == null ? "" : ": " + job.lastError())
                + (retryable ? "; POST .../retry runs it again." : "."))
        .with("finishedAt", job.finishedAt() == null ? null : job.finishedAt().toString())
        .with("attempts", job.attempt())
        .with("error", job.lastError())
        .with("retryable", retryable);
  }
}
