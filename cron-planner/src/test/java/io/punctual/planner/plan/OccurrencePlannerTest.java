package io.punctual.planner.plan;

import static io.punctual.schedule.testing.Schedules.aSchedule;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Occurrence.Outcome;
import io.punctual.schedule.MisfirePolicy;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The planning rules with a fixed clock: look-ahead, misfire policies, overlap skip. */
class OccurrencePlannerTest {
  private final TestClock clock = TestClock.at("2025-06-02T10:00:00Z");
  private final PlannerSettings settings = new PlannerSettings(); // lookAhead 1 min, threshold 10 s
  private final OccurrencePlanner planner = new OccurrencePlanner(settings);

  private Instant at(String time) {
    return Instant.parse("2025-06-02T" + time + "Z");
  }

  /**
   * The line {@link MisfireLine} draws when the planners have just come back from an outage (or
   * start for the first time): fire times more than the threshold (10 s) old were missed.
   */
  private Instant afterOutage() {
    return clock.instant().minus(settings.misfireThreshold);
  }

  private static List<Instant> fireTimes(SchedulePlan plan, Outcome outcome) {
    return plan.occurrences().stream()
        .filter(o -> o.outcome() == outcome)
        .map(Occurrence::fireAt)
        .toList();
  }

  @Test
  void materialisesEveryFireTimeWithinTheLookAheadAndComesBackAtHalfOfIt() {
    Schedule everyTwentySeconds =
        aSchedule().every(Duration.ofSeconds(20)).stored(at("09:00:00"), at("10:00:00"), null);

    SchedulePlan plan = planner.plan(everyTwentySeconds, clock.instant(), afterOutage(), false);

    assertThat(plan.occurrences())
        .containsExactly(
            Occurrence.job(at("10:00:00"), at("10:00:00")),
            Occurrence.job(at("10:00:20"), at("10:00:20")),
            Occurrence.job(at("10:00:40"), at("10:00:40")),
            Occurrence.job(at("10:01:00"), at("10:01:00")));
    assertThat(plan.nextFireAt()).isEqualTo(at("10:01:20"));
    assertThat(plan.planAt()).isEqualTo(at("10:00:50")); // next - lookAhead / 2
    assertThat(plan.misfire()).isFalse();
  }

  @Test
  void aScheduleNotDueYetIsOnlyLookedAtAgainLater() {
    Schedule daily = aSchedule().cron("0 9 * * *").stored(at("09:30:00"), at("09:00:00"), null);
    Schedule tomorrow =
        new Schedule(
            daily.id(),
            daily.namespace(),
            daily.definition(),
            daily.status(),
            Instant.parse("2025-06-03T09:00:00Z"),
            daily.planAt(),
            null,
            null,
            daily.createdAt(),
            daily.updatedAt(),
            null);

    SchedulePlan plan = planner.plan(tomorrow, clock.instant(), afterOutage(), false);

    assertThat(plan.occurrences()).isEmpty();
    assertThat(plan.nextFireAt()).isEqualTo(Instant.parse("2025-06-03T09:00:00Z"));
    assertThat(plan.planAt()).isEqualTo(Instant.parse("2025-06-03T08:59:30Z"));
  }

  @Test
  void lateByLessThanTheThresholdIsNotAMisfire() {
    Schedule s =
        aSchedule().every(Duration.ofMinutes(1)).stored(at("09:00:00"), at("09:59:55"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(plan.misfire()).isFalse();
    assertThat(plan.occurrences().get(0)).isEqualTo(Occurrence.job(at("09:59:55"), at("09:59:55")));
  }

  @Test
  void aFireTimeABusyPlannerReachesLateIsLateNotMissed() {
    // The planners have been up since 08:00, only busy: 09:58 is reached two minutes late.
    Instant missedBefore = at("08:00:00").minus(settings.misfireThreshold);
    Schedule s =
        aSchedule()
            .cron("* * * * *")
            .misfire(MisfirePolicy.SKIP)
            .stored(at("08:00:00"), at("09:58:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), missedBefore, false);

    assertThat(plan.misfire()).isFalse();
    assertThat(plan.occurrences())
        .containsExactly(
            Occurrence.job(at("09:58:00"), at("09:58:00")), // due at its fire time: runs now
            Occurrence.job(at("09:59:00"), at("09:59:00")),
            Occurrence.job(at("10:00:00"), at("10:00:00")),
            Occurrence.job(at("10:01:00"), at("10:01:00")));
  }

  @Test
  void onlyWhatCameBeforeTheComebackMinusTheThresholdWasMissed() {
    // Every planner was down until 09:59:55; this schedule is reached 25 s after the comeback.
    Instant missedBefore = at("09:59:55").minus(settings.misfireThreshold); // 09:59:45
    Schedule s =
        aSchedule()
            .every(Duration.ofSeconds(10))
            .startAt(at("09:00:00"))
            .misfire(MisfirePolicy.FIRE_ONCE)
            .stored(at("08:00:00"), at("09:58:00"), null);

    SchedulePlan plan = planner.plan(s, at("10:00:20"), missedBefore, false);

    assertThat(plan.misfire()).isTrue();
    // 09:58:00 .. 09:59:40 came while everything was down: one catch-up run, due now.
    assertThat(plan.occurrences().get(0)).isEqualTo(Occurrence.job(at("09:58:00"), at("10:00:20")));
    // 09:59:50 came within the threshold of the comeback, and the rest while the planner worked:
    // late, each run at its fire time.
    assertThat(plan.occurrences().subList(1, 5))
        .containsExactly(
            Occurrence.job(at("09:59:50"), at("09:59:50")),
            Occurrence.job(at("10:00:00"), at("10:00:00")),
            Occurrence.job(at("10:00:10"), at("10:00:10")),
            Occurrence.job(at("10:00:20"), at("10:00:20")));
    assertThat(plan.nextFireAt()).isEqualTo(at("10:01:30"));
  }

  @Test
  void fireOnceMakesOneCatchUpRunNowForEverythingMissed() {
    // Everything was down from 09:00 to 10:00: 60 minutely fire times were missed.
    Schedule s =
        aSchedule()
            .cron("* * * * *")
            .misfire(MisfirePolicy.FIRE_ONCE)
            .stored(at("08:00:00"), at("09:00:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(plan.misfire()).isTrue();
    assertThat(plan.occurrences().get(0)).isEqualTo(Occurrence.job(at("09:00:00"), at("10:00:00")));
    // then the regular ones from the threshold (09:59:50) on: 10:00, and 10:01 within the
    // look-ahead
    assertThat(fireTimes(plan, Outcome.JOB))
        .containsExactly(at("09:00:00"), at("10:00:00"), at("10:01:00"));
    assertThat(plan.nextFireAt()).isEqualTo(at("10:02:00"));
  }

  @Test
  void fireAllRunsEachMissedFireTimeUpToTheCap() {
    settings.fireAllCap = 5;
    OccurrencePlanner capped = new OccurrencePlanner(settings);
    Schedule s =
        aSchedule()
            .cron("* * * * *")
            .misfire(MisfirePolicy.FIRE_ALL)
            .stored(at("08:00:00"), at("09:00:00"), null);

    SchedulePlan plan = capped.plan(s, clock.instant(), afterOutage(), false);

    List<Occurrence> catchUp = plan.occurrences().subList(0, 5);
    assertThat(catchUp)
        .extracting(Occurrence::fireAt)
        .containsExactly(
            at("09:00:00"), at("09:01:00"), at("09:02:00"), at("09:03:00"), at("09:04:00"));
    assertThat(catchUp).extracting(Occurrence::runAt).containsOnly(clock.instant());
    assertThat(fireTimes(plan, Outcome.MISSED)).containsExactly(at("09:05:00"));
    assertThat(fireTimes(plan, Outcome.JOB).subList(5, 7))
        .containsExactly(at("10:00:00"), at("10:01:00"));
  }

  @Test
  void fireAllUnderTheCapRunsThemAll() {
    Schedule s =
        aSchedule()
            .every(Duration.ofMinutes(15))
            .startAt(at("09:00:00"))
            .misfire(MisfirePolicy.FIRE_ALL)
            .stored(at("08:00:00"), at("09:00:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(fireTimes(plan, Outcome.JOB))
        .containsExactly(
            at("09:00:00"), at("09:15:00"), at("09:30:00"), at("09:45:00"), at("10:00:00"));
    assertThat(fireTimes(plan, Outcome.MISSED)).isEmpty();
  }

  @Test
  void skipRecordsTheMissAndGoesOnWithTheNextFireTime() {
    Schedule s =
        aSchedule()
            .cron("*/5 * * * *")
            .misfire(MisfirePolicy.SKIP)
            .stored(at("08:00:00"), at("09:00:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(plan.misfire()).isTrue();
    assertThat(fireTimes(plan, Outcome.MISSED)).containsExactly(at("09:00:00"));
    assertThat(fireTimes(plan, Outcome.JOB)).containsExactly(at("10:00:00"));
    assertThat(plan.nextFireAt()).isEqualTo(at("10:05:00"));
  }

  @Test
  void overlapSkipMaterialisesOnlyWhenDueAndSkipsWhileThePreviousRuns() {
    Schedule s =
        aSchedule()
            .every(Duration.ofSeconds(10))
            .overlap(OverlapPolicy.SKIP)
            .stored(at("09:00:00"), at("10:00:00"), UUID.randomUUID());

    SchedulePlan idle = planner.plan(s, clock.instant(), afterOutage(), false);
    assertThat(idle.occurrences()).containsExactly(Occurrence.job(at("10:00:00"), at("10:00:00")));
    assertThat(idle.planAt()).isEqualTo(at("10:00:10")); // its next fire time, not before

    SchedulePlan busy = planner.plan(s, clock.instant(), afterOutage(), true);
    assertThat(busy.occurrences())
        .containsExactly(Occurrence.skipped(at("10:00:00"), Outcome.SKIPPED_OVERLAP));
  }

  @Test
  void overlapSkipWithFireAllRunsTheFirstMissedAndSkipsTheRest() {
    Schedule s =
        aSchedule()
            .every(Duration.ofMinutes(20))
            .startAt(at("09:00:00"))
            .overlap(OverlapPolicy.SKIP)
            .misfire(MisfirePolicy.FIRE_ALL)
            .stored(at("08:00:00"), at("09:00:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(fireTimes(plan, Outcome.JOB)).containsExactly(at("09:00:00"));
    assertThat(fireTimes(plan, Outcome.SKIPPED_OVERLAP))
        .containsExactly(at("09:20:00"), at("09:40:00"), at("10:00:00"));
  }

  @Test
  void anEndedScheduleIsNeverLookedAtAgain() {
    Schedule s =
        aSchedule()
            .every(Duration.ofSeconds(30))
            .startAt(at("09:59:00"))
            .endAt(at("10:00:30"))
            .stored(at("09:00:00"), at("10:00:00"), null);

    SchedulePlan plan = planner.plan(s, clock.instant(), afterOutage(), false);

    assertThat(fireTimes(plan, Outcome.JOB)).containsExactly(at("10:00:00"), at("10:00:30"));
    assertThat(plan.nextFireAt()).isNull();
    assertThat(plan.planAt()).isNull();
  }

  @Test
  void aStepStopsAtItsLimitAndLeavesTheScheduleDue() {
    settings.lookAhead = Duration.ofHours(2);
    OccurrencePlanner far = new OccurrencePlanner(settings);
    Schedule s =
        aSchedule().every(Duration.ofSeconds(1)).stored(at("09:00:00"), at("10:00:00"), null);

    SchedulePlan plan = far.plan(s, clock.instant(), afterOutage(), false);

    assertThat(plan.occurrences()).hasSize(OccurrencePlanner.MAX_PER_STEP);
    assertThat(plan.planAt()).isEqualTo(clock.instant());
  }
}
