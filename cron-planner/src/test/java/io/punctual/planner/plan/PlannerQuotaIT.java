package io.punctual.planner.plan;

import static io.punctual.schedule.testing.Schedules.aSchedule;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.planner.support.PlannerFixture;
import io.punctual.queue.rate.SubmitRateLimiter;
import io.punctual.schedule.Schedule;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Quota;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Schedules count against their namespace's quota.maxPending like submits: a fire time that finds
 * the namespace full is recorded as {@code skipped_quota}, not run, and not queued up for later.
 */
class PlannerQuotaIT {
  private static final Instant MONDAY_TEN = Instant.parse("2030-01-07T10:00:00Z");

  private final TestClock clock = new TestClock(MONDAY_TEN);
  private final PlannerFixture fx = new PlannerFixture(clock);

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void fireTimesOverMaxPendingAreSkippedAndRecordedAsSuch() {
    fx.stores.namespaces().create("capped", new Quota(null, null, 3L, null));
    Schedule capped =
        fx.schedules.create("capped", aSchedule().every(Duration.ofSeconds(10)).definition());
    Schedule free =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());

    // lookAhead 1 min: 10:00:00 .. 10:01:00, seven fire times each
    Planner.Pass pass = fx.planner().runOnce();

    assertThat(fx.jobsOf(capped.id()))
        .extracting(Job::occurrenceAt)
        .containsExactly(MONDAY_TEN, MONDAY_TEN.plusSeconds(10), MONDAY_TEN.plusSeconds(20));
    assertThat(fx.recorded(capped.id(), "skipped_quota"))
        .containsExactly(
            MONDAY_TEN.plusSeconds(30),
            MONDAY_TEN.plusSeconds(40),
            MONDAY_TEN.plusSeconds(50),
            MONDAY_TEN.plusSeconds(60));
    assertThat(fx.jobsOf(free.id())).hasSize(7);
    assertThat(pass.jobs()).isEqualTo(10);
    assertThat(pass.skipped()).isEqualTo(4);
    assertThat(fx.metrics.meter("punctual.planner.occurrences.overQuota").getCount()).isEqualTo(4);
    assertThat(fx.occurrencesWithoutExactlyOneJob()).isEmpty();
  }

  /**
   * Fire times are never dropped for the rate: their jobs are charged to the namespace's bucket
   * after the fact, in debt, so the namespace's submits wait until it has refilled past them.
   */
  @Test
  void schedulesJobsAreChargedToTheNamespacesRateInDebt() {
    Namespace ns =
        fx.stores.namespaces().create("metered", new Quota(1, 5, null, null)).orElseThrow();
    Schedule s =
        fx.schedules.create("metered", aSchedule().every(Duration.ofSeconds(10)).definition());

    try (Planner planner = fx.planner()) {
      planner.runOnce();
    }

    assertThat(fx.jobsOf(s.id())).hasSize(7);
    try (SubmitRateLimiter bucket =
        new SubmitRateLimiter(
            fx.stores.redisClient(), fx.stores.keys(), clock, Duration.ofSeconds(2))) {
      // 5 tokens, 7 taken: 2 in debt, so one submit waits 3 s of refill (one a second)
      SubmitRateLimiter.Verdict verdict = bucket.take(ns, 1);
      assertThat(verdict.admitted()).isFalse();
      assertThat(verdict.untilAdmitted()).isEqualTo(Duration.ofSeconds(3));
      clock.advance(Duration.ofSeconds(3));
      assertThat(bucket.take(ns, 1).admitted()).isTrue();
    }
  }

  @Test
  void roomMadeByFinishedJobsIsUsedByTheNextFireTimes() {
    fx.stores.namespaces().create("drains", new Quota(null, null, 2L, null));
    Schedule s =
        fx.schedules.create("drains", aSchedule().every(Duration.ofSeconds(10)).definition());
    Planner planner = fx.planner();
    planner.runOnce();
    List<Job> first = fx.jobsOf(s.id());
    assertThat(first).hasSize(2);

    // both jobs end (cancelled here), and a minute later the planner comes back
    for (Job job : first) {
      fx.stores.transitions().cancel("drains", job.id());
    }
    clock.advance(Duration.ofMinutes(1));
    planner.runOnce();

    assertThat(fx.jobsOf(s.id()))
        .extracting(Job::occurrenceAt)
        .contains(MONDAY_TEN.plusSeconds(70), MONDAY_TEN.plusSeconds(80))
        .hasSize(4);
    assertThat(fx.recorded(s.id(), "skipped_quota")).contains(MONDAY_TEN.plusSeconds(90));
  }
}
