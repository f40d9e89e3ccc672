package io.punctual.worker.limit;

import io.punctual.model.Job;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.queue.limit.LimitHolds.Holder;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.LimitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's side of limits, around the claim and the finish statements (PostgreSQL decides both;
 * this keeps Redis in step after each commit): after a claim, the slots taken go into the mirror
 * and the jobs refused go where they wait (a hold set, their queue at their reserved start, or
 * their queue as they were when their namespace was full); after a finish, the slots the statement
 * gave back are released in the mirror, which moves the head of each key's hold set back to its
 * queue. A Redis failure here is logged: PostgreSQL holds the truth and the reaper's pass repairs
 * the mirror and wakes held jobs of keys with free slots.
 */
public final class SlotHolders {
  private static final Logger log = LoggerFactory.getLogger(SlotHolders.class);

  private final LimitHolds holds;
  private final LimitStore limits;
  private final ReadyQueue queue;
  private final String workerId;

  /** The attempts this worker runs that hold a slot: job id -> namespace and attempt. */
  private final Map<UUID, Held> held = new ConcurrentHashMap<>();

  private record Held(String namespace, int attempt) {}

  public SlotHolders(LimitHolds holds, LimitStore limits, ReadyQueue queue, String workerId) {
    this.holds = holds;
    this.limits = limits;
    this.queue = queue;
    this.workerId = workerId;
  }

  /** Attempts of this worker holding a slot now. */
  public int size() {
    return held.size();
  }

  /**
   * After a claim committed: records its slots (mirror and this worker's holders) and puts each
   * refused job where it waits. Call once the refused jobs' leases are released.
   */
  public void claimed(String namespace, ClaimOutcome outcome) {
    if (!outcome.slots().isEmpty()) {
      Map<UUID, Integer> attempts = new HashMap<>();
      for (Job job : outcome.claimed()) {
        if (outcome.slots().containsKey(job.id())) {
          attempts.put(job.id(), job.attempt());
          held.put(job.id(), new Held(namespace, job.attempt()));
        }
      }
      try {
        holds.taken(namespace, outcome.slots(), attempts);
      } catch (RuntimeException e) {
        log.warn(
            "could not mirror {} slots taken worker={} namespace={}: {}",
            attempts.size(),
            workerId,
            namespace,
            e.toString());
      }
    }
    if (outcome.refused().isEmpty()) {
      return;
    }
    List<QueueEntry> later = new ArrayList<>();
    for (ClaimOutcome.Refusal r : outcome.refused()) {
      Job job = r.job();
      if (r.reason() == ClaimOutcome.Reason.LATER) {
        later.add(new QueueEntry(job.id(), job.namespace(), job.priority(), r.nextAt()));
      } else if (r.reason() == ClaimOutcome.Reason.NAMESPACE_FULL) {
        // Back to its queue as it was: the claim loop leaves its namespace alone meanwhile.
        later.add(QueueEntry.of(job));
      }
    }
    try {
      holds.hold(namespace, outcome.refused());
      queue.enqueue(later);
    } catch (RuntimeException e) {
      log.warn(
          "could not park {} jobs the limits refused; they wait for reconciliation worker={}"
              + " namespace={}: {}",
          outcome.refused().size(),
          workerId,
          namespace,
          e.toString());
    }
  }

  /**
   * After a finish committed: the mirror releases the slot of every attempt of {@code ended} that
   * held one; {@code applied} (those this finish ended) is for the logs only, since a refused
   * attempt's slot was given back by whoever ended it (a cancel, a rescue).
   */
  public void finished(Collection<UUID> ended, Set<UUID> applied) {
    Map<String, List<Holder>> released = new LinkedHashMap<>();
    for (UUID id : ended) {
      Held h = held.remove(id);
      // Applied: this finish gave the slot back. Refused: whoever ended the attempt (a cancel, a
      // rescue) gave it back in PostgreSQL; the mirror's release is fenced by attempt, so a second
      // release of the same attempt changes nothing.
      if (h != null) {
        released
            .computeIfAbsent(h.namespace(), n -> new ArrayList<>())
            .add(new Holder(id, h.attempt()));
      }
    }
    if (!released.isEmpty()) {
      log.debug(
          "releasing slots of {} attempts ({} ended here) worker={}",
          released.values().stream().mapToInt(List::size).sum(),
          applied.size(),
          workerId);
    }
    for (var e : released.entrySet()) {
      try {
        holds.released(e.getKey(), e.getValue());
      } catch (RuntimeException ex) {
        log.warn(
            "could not mirror {} slots released worker={} namespace={}: {}",
            e.getValue().size(),
            workerId,
            e.getKey(),
            ex.toString());
      }
    }
  }

  /**
   * A handler asked to be retried after {@code pause} (RetryAfterException, an HTTP 429): if its
   * type's limit says so, the whole key rests that long.
   */
  public void retryAfter(Job job, Duration pause) {
    try {
      if (limits.slowKeyOf(job.id(), job.namespace(), job.type(), pause)) {
        log.info(
            "key slowed for {} after Retry-After job={} attempt={} worker={} namespace={}",
            pause,
            job.id(),
            job.attempt(),
            workerId,
            job.namespace());
      }
    } catch (RuntimeException e) {
      log.warn(
          "could not slow the key of job={} attempt={} worker={}: {}",
          job.id(),
          job.attempt(),
          workerId,
          e.toString());
    }
  }
}
