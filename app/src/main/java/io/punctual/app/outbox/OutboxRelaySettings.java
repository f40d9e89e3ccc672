package io.punctual.app.outbox;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link OutboxRelay} forwards, validated at construction; {@link #DEFAULTS} are the
 * defaults.
 *
 * @param batchSize rows taken per pass (1 to 10,000); a full pass is followed by another at once
 * @param pollInterval the longest wait between passes when the last one was not full (at least 1
 *     ms); a listening relay wakes earlier, at the commit of an enqueue
 * @param lease how long a row taken by a relay stays out of the other relays' way; longer than a
 *     forward can take (the client's request timeout is 30 s). A relay that dies holding rows
 *     delays them by at most this
 * @param firstBackoff the wait after a row's first failed forward; doubled at each further failure
 * @param maxBackoff the longest wait between two forwards of a row
 * @param forwardConcurrency rows of a pass forwarded at once (1 to 256; 1: one after another, in id
 *     order); each holds a connection of the pool for its delete
 * @param listen whether the relay holds one connection of the pool in {@code LISTEN
 *     punctual_outbox} to wake at each enqueue's commit instead of at the next poll
 */
public record OutboxRelaySettings(
    int batchSize,
    Duration pollInterval,
    Duration lease,
    Duration firstBackoff,
    Duration maxBackoff,
    int forwardConcurrency,
    boolean listen) {
  /** 100 rows, 200 ms, 60 s lease, backoff 1 s doubling to 30 s, 8 at once, listening. */
  public static final OutboxRelaySettings DEFAULTS =
      new OutboxRelaySettings(
          100,
          Duration.ofMillis(200),
          Duration.ofSeconds(60),
          Duration.ofSeconds(1),
          Duration.ofSeconds(30),
          8,
          true);

  public OutboxRelaySettings {
    if (batchSize < 1 || batchSize > 10_000) {
      throw new IllegalArgumentException("batchSize must be between 1 and 10000: " + batchSize);
    }
    positive(pollInterval, "pollInterval");
    positive(lease, "lease");
    positive(firstBackoff, "firstBackoff");
    positive(maxBackoff, "maxBackoff");
    if (maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must be at least firstBackoff");
    }
    if (forwardConcurrency < 1 || forwardConcurrency > 256) {
      throw new IllegalArgumentException(
          "forwardConcurrency must be between 1 and 256: " + forwardConcurrency);
    }
    if (pollInterval.toMillis() < 1 || pollInterval.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "pollInterval must be between 1 ms and 2^31 ms: " + pollInterval);
    }
  }

  private static void positive(Duration d, String name) {
    if (Objects.requireNonNull(d, name).isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }

  public OutboxRelaySettings withBatchSize(int n) {
    return new OutboxRelaySettings(
        n, pollInterval, lease, firstBackoff, maxBackoff, forwardConcurrency, listen);
  }

  public OutboxRelaySettings withPollInterval(Duration d) {
    return new OutboxRelaySettings(
        batchSize, d, lease, firstBackoff, maxBackoff, forwardConcurrency, listen);
  }

  public OutboxRelaySettings withLease(Duration d) {
    return new OutboxRelaySettings(
        batchSize, pollInterval, d, firstBackoff, maxBackoff, forwardConcurrency, listen);
  }

  public OutboxRelaySettings withBackoff(Duration first, Duration max) {
    return new OutboxRelaySettings(
        batchSize, pollInterval, lease, first, max, forwardConcurrency, listen);
  }

  public OutboxRelaySettings withForwardConcurrency(int n) {
    return new OutboxRelaySettings(
        batchSize, pollInterval, lease, firstBackoff, maxBackoff, n, listen);
  }

  public OutboxRelaySettings withListen(boolean on) {
    return new OutboxRelaySettings(
        batchSize, pollInterval, lease, firstBackoff, maxBackoff, forwardConcurrency, on);
  }

  /** The wait after a row's failed forward, {@code failures} failures before it. */
  Duration backoff(int failures) {
    Duration d = firstBackoff;
    for (int i = 0; i < failures && d.compareTo(maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }
}
