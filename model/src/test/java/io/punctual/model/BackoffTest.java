package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final SplittableRandom random = new SplittableRandom(42);

  @Test
  void exponentialGrowsByFactorAndStopsAtMax() {
    Backoff b = new Backoff.Exponential(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 0.0);

    assertThat(b.delayAfter(1, random)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.delayAfter(2, random)).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.delayAfter(3, random)).isEqualTo(Duration.ofSeconds(4));
    assertThat(b.delayAfter(4, random)).isEqualTo(Duration.ofSeconds(8));
    assertThat(b.delayAfter(5, random)).isEqualTo(Duration.ofSeconds(10));
    assertThat(b.delayAfter(60, random)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void jitterStaysWithinItsFraction() {
    Backoff b = new Backoff.Exponential(Duration.ofSeconds(10), 2.0, Duration.ofHours(1), 0.2);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < 1_000; i++) {
      long ms = b.delayAfter(1, random).toMillis();
      min = Math.min(min, ms);
      max = Math.max(max, ms);
    }
    assertThat(min).isBetween(8_000L, 8_400L);
    assertThat(max).isBetween(11_600L, 12_000L);
  }

  @Test
  void fixedAlwaysWaitsTheSame() {
    Backoff b = new Backoff.Fixed(Duration.ofSeconds(30));
    assertThat(b.delayAfter(1, random)).isEqualTo(Duration.ofSeconds(30));
    assertThat(b.delayAfter(9, random)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void intervalsFollowTheListThenRepeatTheLast() {
    Backoff b = new Backoff.Intervals(List.of(Duration.ofMinutes(1), Duration.ofMinutes(5)));
    assertThat(b.delayAfter(1, random)).isEqualTo(Duration.ofMinutes(1));
    assertThat(b.delayAfter(2, random)).isEqualTo(Duration.ofMinutes(5));
    assertThat(b.delayAfter(3, random)).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void invalidParametersAreRejected() {
    assertThatThrownBy(
            () -> new Backoff.Exponential(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(2), 0))
        .hasMessageContaining("factor");
    assertThatThrownBy(
            () -> new Backoff.Exponential(Duration.ofSeconds(5), 2, Duration.ofSeconds(2), 0))
        .hasMessageContaining("maxDelay");
    assertThatThrownBy(
            () -> new Backoff.Exponential(Duration.ofSeconds(1), 2, Duration.ofSeconds(2), 1.5))
        .hasMessageContaining("jitter");
    assertThatThrownBy(() -> new Backoff.Fixed(Duration.ofSeconds(-1)))
        .hasMessageContaining("delay");
    assertThatThrownBy(() -> new Backoff.Intervals(List.of())).hasMessageContaining("empty");
  }
}
