package io.punctual.worker.claim;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.lease.Redlock;
import io.punctual.store.JobQueries;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a claim gives back when it cannot start its jobs: the queue entries of jobs still PENDING
 * and the leases taken. Failures are logged; the reaper's reconciliation repairs what is left.
 */
final class ClaimReturns {
  private static final Logger log = LoggerFactory.getLogger(ClaimReturns.class);

  private final JobQueries queries;
  private final ReadyQueue queue;
  private final Redlock redlock;
  private final String workerId;

  ClaimReturns(JobQueries queries, ReadyQueue queue, Redlock redlock, String workerId) {
    this.queries = queries;
    this.queue = queue;
    this.redlock = redlock;
    this.workerId = workerId;
  }

  /** After a failure between the Redis claim and PostgreSQL, puts claimed jobs back as due now. */
  void putBack(String ns, List<Claimed> claimed, Set<UUID> which, Instant now) {
    List<QueueEntry> entries = new ArrayList<>();
    for (Claimed c : claimed) {
      if (which.contains(c.id())) {
        entries.add(new QueueEntry(c.id(), ns, c.priority(), now));
      }
    }
    try {
      queue.enqueue(entries);
    } catch (RuntimeException e) {
      log.warn(
          "could not put {} claimed jobs back; they wait for reconciliation worker={}: {}",
          entries.size(),
          workerId,
          e.toString());
    }
  }

  /**
   * A refused claim is normally a job cancelled or finished meanwhile. One still PENDING had a
   * queue entry older than its run_at (a repair raced a retry), or its lease was taken: it goes
   * back at its real time, and not before {@code notBefore}.
   */
  void requeueIfPending(List<UUID> ids, Instant notBefore) {
    if (ids.isEmpty()) {
      return;
    }
    try {
      List<QueueEntry> entries = new ArrayList<>();
      for (Job job : queries.findMany(ids)) {
        if (job.status() == JobState.PENDING) {
          Instant at = job.runAt().isBefore(notBefore) ? notBefore : job.runAt();
          entries.add(new QueueEntry(job.id(), job.namespace(), job.priority(), at));
        }
      }
      queue.enqueue(entries);
    } catch (RuntimeException e) {
      log.warn(
          "could not check {} refused claims; they wait for reconciliation worker={}: {}",
          ids.size(),
          workerId,
          e.toString());
    }
  }

  void releaseQuietly(List<UUID> ids) {
    if (ids.isEmpty()) {
      return;
    }
    try {
      redlock.release(ids, workerId);
    } catch (RuntimeException e) {
      log.warn("releasing {} leases failed worker={}: {}", ids.size(), workerId, e.toString());
    }
  }
}
