package io.punctual.worker.claim;

import io.punctual.model.Job;
import io.punctual.store.JobTransitions.Attempt;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The worker's handler slots ({@code worker.concurrency} permits), what starts a confirmed job on
 * the slot already taken for it, which attempts the worker holds (running, or ended with their
 * result not written yet): a claim read back after a failed commit hands back only the others; the
 * claims held unwritten ({@code worker.claimWriteAfter}), null when every claim is written at once;
 * and the worker's own leases, which its claims take (null: leases of a worker that holds nothing
 * else, a test's).
 */
public record HandlerSlots(
    Semaphore slots,
    Consumer<Job> starter,
    Predicate<Attempt> heldHere,
    UnwrittenClaims unwritten,
    OwnLeases leases) {

  /** Slots whose claims are all written at once. */
  public HandlerSlots(Semaphore slots, Consumer<Job> starter, Predicate<Attempt> heldHere) {
    this(slots, starter, heldHere, null, null);
  }

  /** Slots of a loop that starts nothing else (a test's): no attempt is held elsewhere. */
  public HandlerSlots(Semaphore slots, Consumer<Job> starter) {
    this(slots, starter, attempt -> false);
  }
}
