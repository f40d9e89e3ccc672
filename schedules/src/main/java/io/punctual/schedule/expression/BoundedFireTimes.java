package io.punctual.schedule.expression;

import java.time.Instant;
import java.util.Optional;

/**
 * The fire times of another sequence from {@code startAt} through {@code endAt} (both optional).
 */
public final class BoundedFireTimes implements FireTimes {
  private final FireTimes times;
  private final Instant startAt;
  private final Instant endAt;

  public BoundedFireTimes(FireTimes times, Instant startAt, Instant endAt) {
    this.times = times;
    this.startAt = startAt;
    this.endAt = endAt;
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    Instant from = startAt != null && after.isBefore(startAt) ? startAt.minusNanos(1) : after;
    return times.nextAfter(from).filter(t -> endAt == null || !t.isAfter(endAt));
  }
}
