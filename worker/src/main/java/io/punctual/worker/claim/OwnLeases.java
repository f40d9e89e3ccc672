package io.punctual.worker.claim;

import io.punctual.queue.lease.Redlock;
import io.punctual.store.JobTransitions.Attempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

/**
 * The job leases this worker takes for its claims and gives up when attempts end. A lease is held
 * in the worker's name, not an attempt's, so releasing an ended attempt's lease could delete the
 * lease of a newer attempt of the same job held here: a worker that wakes from a pause may claim a
 * job again that was rescued meanwhile (the death watch released its lease) while the result of its
 * earlier attempt is still on its way. That result's release would then free the job for another
 * claim, which could run the new attempt's number a second time while its claim is unwritten.
 *
 * <p>So an ended attempt's lease is released only if the job is not held here otherwise: not in a
 * claim taking its leases or starting its jobs, and not under another attempt ({@code
 * heldOtherwise}: unwritten, running, or with its result on its way). The check and the release are
 * one step under a lock that claims take their leases under, so a claim cannot lease the job
 * between them.
 */
public final class OwnLeases {
  private final Redlock redlock;
  private final String workerId;
  private final Predicate<Attempt> heldOtherwise;
  private final ConcurrentHashMap<UUID, Integer> claiming = new ConcurrentHashMap<>();
  private final Lock acquiring;
  private final Lock releasing;

  /**
   * @param heldOtherwise whether this worker holds the job of an ended attempt under another
   *     attempt (asked in the order an attempt moves: unwritten claim, running, result pending)
   */
  public OwnLeases(Redlock redlock, String workerId, Predicate<Attempt> heldOtherwise) {
    this.redlock = redlock;
    this.workerId = workerId;
    this.heldOtherwise = heldOtherwise;
    ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    this.acquiring = lock.readLock();
    this.releasing = lock.writeLock();
  }

  /** Leases of a worker that holds no attempt outside the releases it asks for (a test's). */
  public static OwnLeases of(Redlock redlock, String workerId) {
    return new OwnLeases(redlock, workerId, a -> false);
  }

  /**
   * Takes the leases of {@code ids} for a claim; returns those taken. Until {@link #claimDone} the
   * jobs leased count as held here: their attempts are not registered anywhere else yet.
   */
  public Set<UUID> acquire(List<UUID> ids, Duration ttl) {
    acquiring.lock();
    try {
      ids.forEach(id -> claiming.merge(id, 1, Integer::sum));
      Set<UUID> leased;
      try {
        leased = redlock.acquire(ids, workerId, ttl);
      } catch (RuntimeException e) {
        claimDone(ids);
        throw e;
      }
      claimDone(ids.stream().filter(id -> !leased.contains(id)).toList());
      return leased;
    } finally {
      acquiring.unlock();
    }
  }

  /** The claim of {@code ids} started its jobs (or gave them up): they are held as attempts now. */
  public void claimDone(Collection<UUID> ids) {
    for (UUID id : ids) {
      claiming.computeIfPresent(id, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /**
   * Releases the leases of the jobs of {@code ended} (attempts whose results were written or
   * refused) that this worker does not hold otherwise ({@code alsoHeld}: asked last, for the
   * results still on their way); returns how many were left held.
   */
  public int releaseEnded(Collection<Attempt> ended, Predicate<UUID> alsoHeld) {
    releasing.lock();
    try {
      List<UUID> free = new ArrayList<>(ended.size());
      int kept = 0;
      for (Attempt a : ended) {
        if (claiming.containsKey(a.jobId()) || heldOtherwise.test(a) || alsoHeld.test(a.jobId())) {
          kept++;
        } else {
          free.add(a.jobId());
        }
      }
      if (!free.isEmpty()) {
        redlock.release(free, workerId);
      }
      return kept;
    } finally {
      releasing.unlock();
    }
  }

  /** Jobs being claimed now (their leases taken or being taken, their attempts not started). */
  int claiming() {
    return claiming.size();
  }
}
