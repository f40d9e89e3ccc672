package io.punctual.planner.support;

import io.punctual.store.testing.TestClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * A clock over a {@link TestClock} that moves it {@code step} forward after each read. A planner
 * reads its clock once per batch, so a pass run on this clock takes {@code step} per batch: a long
 * pass, without waiting for it.
 */
public final class SteppingClock extends Clock {
  private final TestClock clock;
  private final Duration step;

  public SteppingClock(TestClock clock, Duration step) {
    this.clock = clock;
    this.step = step;
  }

  @Override
  public synchronized Instant instant() {
    Instant now = clock.instant();
    clock.advance(step);
    return now;
  }

  @Override
  public ZoneId getZone() {
    return clock.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
