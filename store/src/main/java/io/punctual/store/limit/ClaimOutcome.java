package io.punctual.store.limit;

import io.punctual.model.Job;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a claim statement decided for a batch: the jobs it started, the slot each limited one holds
 * (by job id), and the jobs its limits refused, each with why and what to do with it. {@code
 * unwritten}: the claimed jobs' claims were read, not written (peekPlain.sql): each {@link Job} in
 * {@code claimed} is as the claim would have made it (RUNNING, attempt + 1, this worker), while its
 * row is still PENDING until the worker writes the claim or the attempt's end.
 */
public record ClaimOutcome(
    List<Job> claimed, Map<UUID, SlotKey> slots, List<Refusal> refused, boolean unwritten) {
  public ClaimOutcome {
    claimed = List.copyOf(claimed);
    slots = Map.copyOf(slots);
    refused = List.copyOf(refused);
  }

  /** An outcome whose claims are written. */
  public ClaimOutcome(List<Job> claimed, Map<UUID, SlotKey> slots, List<Refusal> refused) {
    this(claimed, slots, refused, false);
  }

  /** Why a limit (or its namespace's running cap) refused a job now. */
  public enum Reason {
    /** Its type is paused: it waits in the type's hold set until resumed. */
    PAUSED,
    /** Every slot of its key is taken: it waits in the key's hold set for one to be released. */
    NO_SLOT,
    /** A rate limit reserved it a later start, or a handler slowed its key: queued again then. */
    LATER,
    /**
     * Its namespace runs as many attempts as its {@code maxRunning} allows: it goes back to its
     * queue, and the worker leaves the namespace alone for a moment.
     */
    NAMESPACE_FULL
  }

  /**
   * A refused job (still PENDING). {@code key}: its limit key (null for a paused type without a
   * limit); {@code concurrency}: its key's limit (null without one); {@code nextAt}: for {@link
   * Reason#LATER}, when it may start.
   */
  public record Refusal(Job job, Reason reason, String key, Integer concurrency, Instant nextAt) {}
}
