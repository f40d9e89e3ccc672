package io.punctual.queue.rate;

import io.github.bucket4j.TimeMeter;
import java.time.Clock;
import java.time.Instant;

/** Bucket4j's time source over an injected clock (wall-clock nanoseconds). */
public record ClockTimeMeter(Clock clock) implements TimeMeter {
  @Override
  public long currentTimeNanos() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public boolean isWallClockBased() {
    return true;
  }
}
