package io.punctual.app.outbox;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@code punctual_outbox} holds at one moment: rows waiting to be forwarded (new, leased, or
 * backing off after a failure), rows set aside for good ({@code dead_at}), and when the oldest
 * waiting row was enqueued (null when none waits).
 */
public record OutboxBacklog(long waiting, long dead, Instant oldestWaiting) {
  /** Nothing waiting, nothing set aside. */
  public static final OutboxBacklog EMPTY = new OutboxBacklog(0, 0, null);

  /** How long the oldest waiting row has waited at {@code now}; zero when none waits. */
  public Duration oldestAge(Instant now) {
    if (oldestWaiting == null || oldestWaiting.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(oldestWaiting, now);
  }
}
