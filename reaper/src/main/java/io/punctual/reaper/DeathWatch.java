package io.punctual.reaper;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.queue.lease.Redlock;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.queue.liveness.WorkerLiveness;
import io.punctual.queue.liveness.WorkerLiveness.Dead;
import io.punctual.store.JobQueries;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.UnwrittenClaim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rescues the attempts of dead workers within seconds: every {@code reaper.deathCheckInterval} it
 * reads the workers whose entry in the live-workers set ({@link WorkerLiveness}) passed its
 * deadline, rescues their running attempts at once (no backoff: the worker died, not the job),
 * releases their leases so another worker can claim them, and takes the worker out of the set once
 * none of its attempts is left running.
 *
 * <p>The rescue is guarded by status and attempt number, and the read by the dead worker's id, so a
 * job claimed again meanwhile is left alone; several reapers may do this at once. A worker that was
 * only paused past its {@code worker.livenessTtl} finds its attempts no longer current at its next
 * heartbeat, and their late results are refused by the attempt number. When Redis restarted empty,
 * the set is empty: nobody seems dead, and a worker that died meanwhile is rescued by {@link
 * Rescuer} on PostgreSQL heartbeats ({@code reaper.rescueAfter}).
 */
public final class DeathWatch {
  private static final Logger log = LoggerFactory.getLogger(DeathWatch.class);

  /** Most dead workers handled in one pass. */
  static final int WORKERS_PER_PASS = 100;

  /** Most claims a dead worker held unwritten that one pass writes to rescue (its concurrency). */
  static final int HELD_PER_PASS = 100_000;

  /** How long the check of a dead worker's leases renews them for, until they are released. */
  private static final Duration HELD_LEASE_CHECK = Duration.ofSeconds(10);

  private final Clock clock;
  private final WorkerLiveness liveness;
  private final JobQueries queries;
  private final Redlock redlock;
  private final JobTransitions transitions;
  private final HeldClaims held;
  private final Rescuer rescuer;
  private final ReaperSettings settings;
  private final JobMetrics deathToRescue;
  private final Meter deadWorkers;

  public DeathWatch(
      Clock clock,
      RescueStores stores,
      WorkerLiveness liveness,
      Rescuer rescuer,
      ReaperSettings settings,
      MetricRegistry metrics) {
    this.clock = clock;
    this.liveness = liveness;
    this.queries = stores.queries();
    this.redlock = stores.redlock();
    this.transitions = stores.transitions();
    this.held = stores.held();
    this.rescuer = rescuer;
    this.settings = settings;
    this.deathToRescue = JobMetrics.of(metrics);
    this.deadWorkers = metrics.meter("punctual.reaper.deadWorkers");
  }

  /** One pass; returns how many attempts it rescued. */
  public int runOnce() {
    WorkerLiveness.Expired expired = liveness.expired(WORKERS_PER_PASS);
    long readNanos = System.nanoTime();
    int rescued = 0;
    for (Dead dead : expired.dead()) {
      rescued += bury(dead, expired.redisNow(), readNanos);
    }
    return rescued;
  }

  private int bury(Dead dead, Instant redisNow, long readNanos) {
    int rescued = 0;
    writeHeldClaims(dead);
    while (true) {
      List<Job> running = queries.runningOf(List.of(dead.workerId()), settings.rescuePage);
      if (running.isEmpty()) {
        if (liveness.forget(dead)) {
          if (held != null) {
            held.forget(dead.workerId());
          }
          deadWorkers.mark();
          log.info(
              "worker {} silent since {}: {} attempts rescued, taken out of the live set",
              dead.workerId(),
              dead.lastSeen(),
              rescued);
        }
        return rescued;
      }
      Instant now = clock.instant();
      String why = "worker " + dead.workerId() + " stopped reporting alive at " + dead.lastSeen();
      // Any heartbeat before now: the worker is dead whatever its last heartbeat says.
      Set<UUID> done =
          rescuer.rescue(running, now, now.plusSeconds(1), j -> Rescuer.atOnce(j, now, why));
      releaseLeases(running, dead.workerId());
      Duration sinceDeath =
          Duration.between(dead.lastSeen(), redisNow).plusNanos(System.nanoTime() - readNanos);
      for (int i = 0; i < done.size(); i++) {
        deathToRescue.rescuedAfterDeath(sinceDeath);
      }
      rescued += done.size();
      if (done.size() < running.size()) {
        // Some changed meanwhile (ended, or a heartbeat dated after now): the next pass reads
        // again.
        return rescued;
      }
    }
  }

  /**
   * Writes, in the dead worker's name, the claims it held without having written them ({@link
   * HeldClaims}): their rows are still PENDING, and once RUNNING under its id they are rescued
   * below like its other attempts (recorded LOST, their leases released). Only the jobs still
   * PENDING whose lease the dead worker still holds, or nobody holds: a lease that lapsed before
   * this pass (a pass late on a loaded machine, the claim taken just before the worker stopped) is
   * taken again in its name, else another worker could take the job under the same attempt number
   * and the dead worker's run of it would be on record nowhere. A member left behind by a step it
   * did not finish, or a job leased by another worker since, is left alone, and a lease taken here
   * for a claim not written is released. The guard on the attempt makes this safe against the
   * worker itself (a pause, not a death), which would find its claim written and then rescued.
   */
  private void writeHeldClaims(Dead dead) {
    if (held == null) {
      return;
    }
    List<UUID> ids = held.of(dead.workerId(), HELD_PER_PASS);
    if (ids.isEmpty()) {
      return;
    }
    List<Job> pending =
        queries.findMany(ids).stream().filter(j -> j.status() == JobState.PENDING).toList();
    if (pending.isEmpty()) {
      return;
    }
    // Renewed, or taken if free, briefly in its name: the answer is which of these jobs nobody
    // else holds; their leases are released with its other attempts' once rescued.
    Set<UUID> leased =
        redlock.renewOrAcquire(
            pending.stream().map(Job::id).toList(), dead.workerId(), HELD_LEASE_CHECK);
    List<UnwrittenClaim> claims = new ArrayList<>();
    for (Job j : pending) {
      if (leased.contains(j.id())) {
        claims.add(new UnwrittenClaim(j.id(), j.attempt() + 1, dead.lastSeen()));
      }
    }
    if (!claims.isEmpty()) {
      Set<UUID> written = transitions.writeClaims(claims, dead.workerId());
      List<UUID> notWritten =
          claims.stream().map(UnwrittenClaim::jobId).filter(id -> !written.contains(id)).toList();
      if (!notWritten.isEmpty()) {
        releaseLeaseKeys(notWritten, dead.workerId());
      }
      log.info(
          "worker {} dead with {} claims not written; {} written in its name to be rescued",
          dead.workerId(),
          claims.size(),
          written.size());
    }
  }

  /** The dead worker's leases, so that another worker can claim the rescued jobs now. */
  private void releaseLeases(List<Job> jobs, String workerId) {
    releaseLeaseKeys(jobs.stream().map(Job::id).toList(), workerId);
  }

  private void releaseLeaseKeys(Collection<UUID> ids, String workerId) {
    try {
      redlock.release(ids, workerId);
    } catch (RuntimeException e) {
      // They expire within worker.leaseTtl; until then the jobs wait in their queue.
      log.warn("could not release the leases of worker {}: {}", workerId, e.toString());
    }
  }
}
