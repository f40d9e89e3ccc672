package io.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Each source its own bucket; refills with the clock; nothing held with pacing off. */
class RefusalPacingTest {
  private final TestClock clock = new TestClock(Instant.parse("2030-01-07T10:00:00Z"));
  private final MetricRegistry metrics = new MetricRegistry();

  private long held() {
    return metrics.meter("punctual.auth.refusalsHeld").getCount();
  }

  @Test
  void eachSourceHasABurstOfTwiceItsRateAndRefillsWithTheClock() {
    RefusalPacing pacing = new RefusalPacing(1000, clock, metrics);
    for (int i = 0; i < 2000; i++) {
      pacing.hold("10.0.0.1");
      pacing.hold("10.0.0.2");
    }
    assertThat(held()).isZero();

    pacing.hold("10.0.0.1"); // its burst is spent: held for its next token, a millisecond away
    assertThat(held()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(1)); // 1000 more for each
    for (int i = 0; i < 999; i++) {
      pacing.hold("10.0.0.1");
    }
    assertThat(held()).isEqualTo(1);
  }

  @Test
  void offHoldsNothing() {
    RefusalPacing pacing = new RefusalPacing(0, clock, metrics);
    for (int i = 0; i < 10_000; i++) {
      pacing.hold("10.0.0.1");
    }
    assertThat(held()).isZero();
  }
}
