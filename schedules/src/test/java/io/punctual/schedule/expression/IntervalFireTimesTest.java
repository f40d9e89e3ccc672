package io.punctual.schedule.expression;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IntervalFireTimesTest {
  private static final Instant ANCHOR = Instant.parse("2025-03-30T00:15:00Z");

  @Test
  void firesAtTheAnchorThenEveryPeriodOfAbsoluteTime() {
    IntervalFireTimes times = new IntervalFireTimes(ANCHOR, Duration.ofMinutes(30));

    assertThat(times.nextAfter(ANCHOR.minusSeconds(3600))).contains(ANCHOR);
    assertThat(times.nextAfter(ANCHOR)).contains(ANCHOR.plusSeconds(1800));
    assertThat(times.nextAfter(ANCHOR.plusMillis(1))).contains(ANCHOR.plusSeconds(1800));
    // The Paris spring-forward change at 01:00Z does not move anything.
    assertThat(times.list(Instant.parse("2025-03-30T00:50:00Z"), 3))
        .containsExactly(
            Instant.parse("2025-03-30T01:15:00Z"),
            Instant.parse("2025-03-30T01:45:00Z"),
            Instant.parse("2025-03-30T02:15:00Z"));
  }

  @Test
  void boundsKeepFireTimesBetweenStartAndEndInclusive() {
    FireTimes bounded =
        new BoundedFireTimes(
            new IntervalFireTimes(ANCHOR, Duration.ofMinutes(10)),
            ANCHOR.plusSeconds(1200),
            ANCHOR.plusSeconds(2400));

    assertThat(bounded.list(ANCHOR, 10))
        .containsExactly(
            ANCHOR.plusSeconds(1200), ANCHOR.plusSeconds(1800), ANCHOR.plusSeconds(2400));
    assertThat(bounded.nextAfter(ANCHOR.plusSeconds(2400))).isEmpty();
  }
}
