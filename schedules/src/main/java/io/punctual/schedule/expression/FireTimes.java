package io.punctual.schedule.expression;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The fire times of a schedule: a strictly increasing sequence of instants. */
public interface FireTimes {
  /**
   * The first fire time strictly after {@code after}; empty when the schedule never fires again.
   */
  Optional<Instant> nextAfter(Instant after);

  /** The first fire time at or after {@code from}. */
  default Optional<Instant> firstFrom(Instant from) {
    return nextAfter(from.minusNanos(1));
  }

  /** Up to {@code count} fire times at or after {@code from}, in order. */
  default List<Instant> list(Instant from, int count) {
    List<Instant> out = new ArrayList<>(Math.min(count, 1_000));
    Optional<Instant> next = firstFrom(from);
    while (next.isPresent() && out.size() < count) {
      out.add(next.get());
      next = nextAfter(next.get());
    }
    return out;
  }
}
