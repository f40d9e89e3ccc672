package io.punctual.model;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How long to wait before the next attempt after a failed one. Stored as JSON on the job, in the
 * same shape the REST API takes: {@code {"strategy":"exponential",...}}, {@code
 * {"strategy":"fixed",...}} or {@code {"strategy":"intervals",...}}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "strategy")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Backoff.Exponential.class, name = "exponential"),
  @JsonSubTypes.Type(value = Backoff.Fixed.class, name = "fixed"),
  @JsonSubTypes.Type(value = Backoff.Intervals.class, name = "intervals")
})
public sealed interface Backoff {

  /** The default: 1 s, doubling, capped at 1 h, ±20 % jitter. */
  Backoff DEFAULT = new Exponential(Duration.ofSeconds(1), 2.0, Duration.ofHours(1), 0.2);

  /**
   * The delay before the attempt after {@code failedAttempt} (1 for the first attempt).
   *
   * @param random source of jitter; pass a seeded one in tests
   */
  Duration delayAfter(int failedAttempt, RandomGenerator random);

  /** {@code initialDelay * factor^(n-1)}, capped at {@code maxDelay}, then ± {@code jitter}. */
  record Exponential(Duration initialDelay, double factor, Duration maxDelay, double jitter)
      implements Backoff {
    public Exponential {
      Objects.requireNonNull(initialDelay, "initialDelay");
      Objects.requireNonNull(maxDelay, "maxDelay");
      if (initialDelay.isNegative()) {
        throw new IllegalArgumentException("initialDelay must not be negative");
      }
      if (!(factor >= 1.0) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException("factor must be a number >= 1");
      }
      if (maxDelay.compareTo(initialDelay) < 0) {
        throw new IllegalArgumentException("maxDelay must be >= initialDelay");
      }
      if (!(jitter >= 0.0 && jitter <= 1.0)) {
        throw new IllegalArgumentException("jitter must be between 0 and 1");
      }
    }

    @Override
    public Duration delayAfter(int failedAttempt, RandomGenerator random) {
      double base = initialDelay.toMillis() * Math.pow(factor, Math.max(0, failedAttempt - 1));
      double capped = Math.min(base, (double) maxDelay.toMillis());
      double spread = jitter == 0.0 ? 0.0 : capped * jitter * (2.0 * random.nextDouble() - 1.0);
      return Duration.ofMillis(Math.max(0L, Math.round(capped + spread)));
    }
  }

  /** The same delay after every failure. */
  record Fixed(Duration delay) implements Backoff {
    public Fixed {
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative");
      }
    }

    @Override
    public Duration delayAfter(int failedAttempt, RandomGenerator random) {
      return delay;
    }
  }

  /**
   * An explicit list: the n-th failure waits {@code intervals[n-1]}; past the end, the last one.
   */
  record Intervals(List<Duration> intervals) implements Backoff {
    public Intervals {
      intervals = List.copyOf(Objects.requireNonNull(intervals, "intervals"));
      if (intervals.isEmpty()) {
        throw new IllegalArgumentException("intervals must not be empty");
      }
      for (Duration d : intervals) {
        if (d.isNegative()) {
          throw new IllegalArgumentException("intervals must not be negative");
        }
      }
    }

    @Override
    public Duration delayAfter(int failedAttempt, RandomGenerator random) {
      int index = Math.min(Math.max(failedAttempt, 1), intervals.size()) - 1;
      return intervals.get(index);
    }
  }
}
