package io.punctual.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.planner.plan.PlannerLiveness.Beat;
import io.punctual.planner.support.PlannerFixture;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The planners' shared beat and the misfire line drawn from it, against real PostgreSQL: a silence
 * longer than the threshold is an outage, anything shorter is not.
 */
class PlannerLivenessIT {
  private static final Instant T0 = Instant.parse("2030-01-07T10:00:00Z");
  private static final Duration THRESHOLD = Duration.ofSeconds(10);

  private final TestClock clock = new TestClock(T0);
  private final PlannerFixture fx = new PlannerFixture(clock);
  private final PlannerLiveness liveness =
      new PlannerLiveness(fx.stores.database().jdbi(), THRESHOLD);

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void theFirstBeatEverMarksAComebackWithNothingBefore() {
    Beat first = liveness.beat(T0);

    assertThat(first).isEqualTo(new Beat(T0, T0, null));
  }

  @Test
  void beatsCloserThanTheThresholdAreNoOutageHoweverLongTheyGoOn() {
    liveness.beat(T0);
    Beat last = null;
    for (int i = 1; i <= 30; i++) {
      last = liveness.beat(T0.plusSeconds(9L * i)); // 4.5 minutes of beats 9 s apart
    }

    assertThat(last).isEqualTo(new Beat(T0.plusSeconds(270), T0, null));
  }

  @Test
  void aSilenceLongerThanTheThresholdIsAnOutageFromTheLastBeat() {
    liveness.beat(T0);
    liveness.beat(T0.plusSeconds(5));

    Beat back = liveness.beat(T0.plusSeconds(16)); // 11 s of silence
    Beat next = liveness.beat(T0.plusSeconds(17));

    assertThat(back).isEqualTo(new Beat(T0.plusSeconds(16), T0.plusSeconds(16), T0.plusSeconds(5)));
    assertThat(next).isEqualTo(new Beat(T0.plusSeconds(17), T0.plusSeconds(16), T0.plusSeconds(5)));
  }

  @Test
  void aPlannerWhoseClockIsBehindNeitherMovesAliveBackNorFindsAnOutage() {
    liveness.beat(T0.plusSeconds(30));

    Beat behind = liveness.beat(T0.plusSeconds(28));

    assertThat(behind).isEqualTo(new Beat(T0.plusSeconds(30), T0.plusSeconds(30), null));
  }

  @Test
  void theLineBeatsAtMostEveryQuarterOfTheThresholdAndFollowsTheLatestComeback() {
    MisfireLine line = new MisfireLine(liveness, THRESHOLD, "test");

    assertThat(line.missedBefore(T0)).isEqualTo(T0.minus(THRESHOLD)); // first beat ever
    assertThat(line.missedBefore(T0.plusSeconds(2))).isEqualTo(T0.minus(THRESHOLD));
    assertThat(aliveAt()).isEqualTo(T0); // 2 s < 2.5 s: answered without a beat
    line.missedBefore(T0.plusSeconds(3));
    assertThat(aliveAt()).isEqualTo(T0.plusSeconds(3));

    // A long pass: a batch every 4 s for a minute. The line stays where it was.
    for (int i = 1; i <= 15; i++) {
      assertThat(line.missedBefore(T0.plusSeconds(3 + 4L * i))).isEqualTo(T0.minus(THRESHOLD));
    }

    // Then nothing for a minute: the planners were down, from 10:01:03 to 10:02:03.
    Instant comeback = T0.plusSeconds(123);
    assertThat(line.missedBefore(comeback)).isEqualTo(comeback.minus(THRESHOLD));
    // Another planner (a line of its own) sees the same comeback.
    assertThat(new MisfireLine(liveness, THRESHOLD, "other").missedBefore(comeback.plusSeconds(1)))
        .isEqualTo(comeback.minus(THRESHOLD));
  }

  private Instant aliveAt() {
    return fx.stack
        .database
        .jdbi()
        .withHandle(
            h -> h.createQuery("SELECT alive_at FROM planner_liveness").mapTo(Instant.class).one());
  }
}
