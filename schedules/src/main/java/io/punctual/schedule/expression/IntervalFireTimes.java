package io.punctual.schedule.expression;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Every {@code period} (whole milliseconds) of absolute time from {@code anchor}: anchor, anchor +
 * period, ... Time zones and daylight-saving changes do not move these (use a cron expression for
 * "every day at 09:00 local time").
 */
public final class IntervalFireTimes implements FireTimes {
  private final Instant anchor;
  private final long periodMillis;

  public IntervalFireTimes(Instant anchor, Duration period) {
    this.anchor = Objects.requireNonNull(anchor, "anchor");
    if (period == null || !period.isPositive()) {
      throw new IllegalArgumentException("period must be positive");
    }
    if (period.toMillis() < 1) {
      throw new IllegalArgumentException("period must be at least a millisecond");
    }
    this.periodMillis = period.toMillis();
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    if (after.isBefore(anchor)) {
      return Optional.of(anchor);
    }
    long since = Duration.between(anchor, after).toMillis();
    long periods = since / periodMillis + 1;
    return Optional.of(anchor.plusMillis(Math.multiplyExact(periods, periodMillis)));
  }
}
