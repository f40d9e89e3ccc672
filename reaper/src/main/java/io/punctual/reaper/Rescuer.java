package io.punctual.reaper;

import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.Rescue;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revives attempts whose worker is gone: RUNNING, no heartbeat for {@code rescueAfter}, and no
 * Redlock lease left on a majority of nodes. Such a job goes back to PENDING after its backoff
 * (transition RESCUE) or, with no attempt left, to FAILED (RESCUE_EXHAUSTED); the lost attempt is
 * recorded as LOST. Retries due within the horizon go straight back into Redis. The SQL update is
 * guarded by status, attempt and heartbeat, so several reapers may race and a worker that reports
 * in at the last moment wins; should a paused worker wake up later, its result is refused by the
 * attempt number.
 */
public final class Rescuer {
  private static final Logger log = LoggerFactory.getLogger(Rescuer.class);

  private final Clock clock;
  private final RescueStores stores;
  private final ReaperSettings settings;
  private final RandomGenerator random;

  /** {@code random} is used from the reaper's threads: it must be safe to share. */
  public Rescuer(
      Clock clock, RescueStores stores, ReaperSettings settings, RandomGenerator random) {
    this.clock = clock;
    this.stores = stores;
    this.settings = settings;
    this.random = random;
  }

  /**
   * One pass; returns how many attempts it rescued. It pages through the stale attempts by
   * (heartbeat, id), past those whose lease is still held, up to {@code maxPerPass} of them.
   */
  public int runOnce() {
    Instant now = clock.instant();
    Instant staleBefore = now.minus(settings.rescueAfter);
    int rescued = 0;
    int seen = 0;
    Instant afterHeartbeat = Instant.EPOCH;
    UUID afterId = new UUID(0, 0);
    while (seen < settings.maxPerPass) {
      int limit = Math.min(settings.rescuePage, settings.maxPerPass - seen);
      List<Job> stale = stores.queries().staleRunning(staleBefore, afterHeartbeat, afterId, limit);
      if (stale.isEmpty()) {
        break;
      }
      seen += stale.size();
      Job last = stale.get(stale.size() - 1);
      afterHeartbeat = last.heartbeatAt();
      afterId = last.id();
      Set<UUID> leased = stores.redlock().heldAmong(stale.stream().map(Job::id).toList());
      // A late heartbeat with a live lease: the worker renews it, so it still runs.
      List<Job> lost = stale.stream().filter(j -> !leased.contains(j.id())).toList();
      rescued += rescue(lost, now, staleBefore, job -> decide(job, now)).size();
      if (stale.size() < limit) {
        break;
      }
    }
    return rescued;
  }

  /**
   * Rescues {@code lost}, running attempts as read, each as {@code decide} says, in one statement
   * guarded by status, attempt and a heartbeat older than {@code staleBefore}; gives their slots
   * back, puts the jobs due soon into Redis and logs each. Returns the ids it rescued (an attempt
   * that ended or reported in meanwhile is left alone).
   */
  Set<UUID> rescue(List<Job> lost, Instant now, Instant staleBefore, Function<Job, Rescue> decide) {
    if (lost.isEmpty()) {
      return Set.of();
    }
    List<Rescue> rescues = new ArrayList<>();
    Map<UUID, Job> byId = new HashMap<>();
    for (Job job : lost) {
      byId.put(job.id(), job);
      rescues.add(decide.apply(job));
    }
    JobTransitions.Ended ended = stores.transitions().rescue(rescues, staleBefore);
    Set<UUID> done = ended.applied();
    releaseSlots(byId, done);
    requeue(rescues, byId, done, ended.released(), now);
    report(rescues, byId, done);
    return done;
  }

  /**
   * The rescue of an attempt whose worker died (seen by {@link DeathWatch}): it runs again at once,
   * as a worker's death is not the job's failure; the lost attempt still counts, so a job that
   * kills every worker it runs on ends FAILED after its attempts.
   */
  static Rescue atOnce(Job job, Instant now, String why) {
    String error = "attempt " + job.attempt() + " lost: " + why;
    if (job.attempt() >= job.maxAttempts()) {
      return new Rescue(job.id(), job.attempt(), JobState.FAILED, null, error);
    }
    return new Rescue(job.id(), job.attempt(), JobState.PENDING, now, error);
  }

  /**
   * The rescue statement gave back the slots of the attempts it ended: the mirror follows, which
   * moves the jobs waiting for those slots back to their queues.
   */
  private void releaseSlots(Map<UUID, Job> byId, Set<UUID> done) {
    Map<String, List<LimitHolds.Holder>> byNamespace = new HashMap<>();
    for (UUID id : done) {
      Job job = byId.get(id);
      byNamespace
          .computeIfAbsent(job.namespace(), n -> new ArrayList<>())
          .add(new LimitHolds.Holder(id, job.attempt()));
    }
    for (var e : byNamespace.entrySet()) {
      try {
        stores.holds().released(e.getKey(), e.getValue());
      } catch (RuntimeException ex) {
        log.warn(
            "could not release the slots of {} rescued attempts: {}",
            e.getValue().size(),
            ex.toString());
      }
    }
  }

  private Rescue decide(Job job, Instant now) {
    String error =
        "attempt "
            + job.attempt()
            + " lost: worker "
            + job.workerId()
            + " silent since "
            + job.heartbeatAt()
            + " and its lease is gone";
    if (job.attempt() >= job.maxAttempts()) {
      return new Rescue(job.id(), job.attempt(), JobState.FAILED, null, error);
    }
    Backoff backoff = job.backoff() == null ? Backoff.DEFAULT : job.backoff();
    Instant next = now.plus(backoff.delayAfter(job.attempt(), random));
    return new Rescue(job.id(), job.attempt(), JobState.PENDING, next, error);
  }

  /** Rescued jobs due soon and the jobs released by rescues that FAILED go back into Redis. */
  private void requeue(
      List<Rescue> rescues,
      Map<UUID, Job> byId,
      Set<UUID> done,
      List<QueueEntry> released,
      Instant now) {
    Instant horizon = now.plus(stores.queueSettings().horizon);
    List<QueueEntry> entries = new ArrayList<>();
    for (QueueEntry r : released) {
      if (!r.runAt().isAfter(horizon)) {
        entries.add(r);
      }
    }
    for (Rescue r : rescues) {
      if (done.contains(r.jobId())
          && r.nextState() == JobState.PENDING
          && !r.nextRunAt().isAfter(horizon)) {
        Job job = byId.get(r.jobId());
        entries.add(new QueueEntry(job.id(), job.namespace(), job.priority(), r.nextRunAt()));
      }
    }
    try {
      stores.queue().enqueue(entries);
    } catch (RuntimeException e) {
      // PostgreSQL holds them as PENDING: the reconciliation or the promoter enqueues them later.
      log.warn("could not enqueue {} rescued jobs: {}", entries.size(), e.toString());
    }
  }

  private static void report(List<Rescue> rescues, Map<UUID, Job> byId, Set<UUID> done) {
    for (Rescue r : rescues) {
      if (!done.contains(r.jobId())) {
        continue;
      }
      Job job = byId.get(r.jobId());
      log.warn(
          "rescued lost attempt job={} attempt={} worker={} next={} runAt={}",
          job.id(),
          job.attempt(),
          job.workerId(),
          r.nextState(),
          r.nextRunAt());
    }
  }
}
