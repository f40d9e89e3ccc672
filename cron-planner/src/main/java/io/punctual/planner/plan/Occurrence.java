package io.punctual.planner.plan;

import java.time.Instant;
import java.util.Locale;

/**
 * One fire time of a schedule as the planner decided it: a job due at {@code runAt} (its fire time,
 * or now for a catch-up), or a record that it was skipped.
 */
public record Occurrence(Instant fireAt, Instant runAt, Outcome outcome) {
  /** What became of a fire time. */
  public enum Outcome {
    /** A job was materialised. */
    JOB,
    /** Not run: overlap {@code skip} and the previous run was still going. */
    SKIPPED_OVERLAP,
    /** Not run: missed while nothing planned it, and the misfire policy left it out. */
    MISSED,
    /** Not run: the namespace held its quota.maxPending when the planner came to it. */
    SKIPPED_QUOTA;

    /** The name stored in {@code schedule_occurrences.outcome}. */
    public String stored() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public static Occurrence job(Instant fireAt, Instant runAt) {
    return new Occurrence(fireAt, runAt, Outcome.JOB);
  }

  public static Occurrence skipped(Instant fireAt, Outcome outcome) {
    return new Occurrence(fireAt, null, outcome);
  }

  public boolean isJob() {
    return outcome == Outcome.JOB;
  }
}
