package io.punctual.planner.plan;

import static io.punctual.schedule.testing.Schedules.aSchedule;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.json.Json;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import io.punctual.planner.support.PlannerFixture;
import io.punctual.planner.support.SteppingClock;
import io.punctual.schedule.DeclaredSchedule;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.MisfirePolicy;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.expression.DstPolicy;
import io.punctual.schedule.store.ScheduleDefinitions.Changed;
import io.punctual.schedule.store.ScheduleDefinitions.Registered;
import io.punctual.schedule.store.ScheduleDefinitions.Registration;
import io.punctual.schedule.store.ScheduleJobs;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The planner against real PostgreSQL and Redis, driven pass by pass with a test clock. */
class PlannerIT {
  private static final Instant MONDAY_TEN = Instant.parse("2030-01-07T10:00:00Z");

  private final TestClock clock = new TestClock(MONDAY_TEN);
  private final PlannerFixture fx = new PlannerFixture(clock);

  @AfterEach
  void close() {
    fx.close();
  }

  private static List<Instant> everyTenSeconds(Instant from, Instant through) {
    List<Instant> out = new java.util.ArrayList<>();
    for (Instant t = from; !t.isAfter(through); t = t.plusSeconds(10)) {
      out.add(t);
    }
    return out;
  }

  @Test
  void materialisesTheLookAheadAsJobsInPostgresAndRedisEachOccurrenceOnce() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    Planner planner = fx.planner();

    Planner.Pass first = planner.runOnce();

    // lookAhead 1 min: 10:00:00 .. 10:01:00
    assertThat(first.jobs()).isEqualTo(7);
    assertThat(first.queued()).isEqualTo(7);
    List<Job> jobs = fx.jobsOf(s.id());
    assertThat(jobs)
        .extracting(Job::occurrenceAt)
        .containsExactlyElementsOf(everyTenSeconds(MONDAY_TEN, MONDAY_TEN.plusSeconds(60)));
    assertThat(jobs).allSatisfy(j -> assertThat(j.runAt()).isEqualTo(j.occurrenceAt()));
    assertThat(jobs).allSatisfy(j -> assertThat(j.scheduleId()).isEqualTo(s.id()));
    assertThat(jobs).allSatisfy(j -> assertThat(j.status()).isEqualTo(JobState.PENDING));
    assertThat(jobs).allSatisfy(j -> assertThat(fx.queued(j.id())).isTrue());
    assertThat(jobs.get(0).payload().get("from").asText()).isEqualTo(s.definition().name());
    assertThat(jobs.get(0).tags()).containsExactly("scheduled");
    assertThat(jobs.get(0).backoff()).isEqualTo(s.definition().job().backoff());
    assertThat(jobs.get(0).maxAttempts()).isEqualTo(3);

    // Nothing is due again until the next fire time is half a look-ahead away.
    assertThat(planner.runOnce().schedules()).isZero();
    clock.advance(Duration.ofSeconds(39));
    assertThat(planner.runOnce().schedules()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(planner.runOnce().jobs()).isEqualTo(4); // 10:01:10 .. 10:01:40

    assertThat(fx.occurrencesOf(s.id(), null))
        .containsExactlyElementsOf(everyTenSeconds(MONDAY_TEN, MONDAY_TEN.plusSeconds(100)));
    assertThat(fx.metrics.meter("punctual.planner.occurrences.planned").getCount()).isEqualTo(11);
  }

  @Test
  void twoPlannersOverTheSameSchedulesProduceEachOccurrenceOnce() throws Exception {
    fx.settings.batchSize = 7; // many small batches, so the two planners interleave
    List<Schedule> all = new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      all.add(
          fx.schedules.create(
              "default",
              i % 2 == 0
                  ? aSchedule().every(Duration.ofSeconds(5)).definition()
                  : aSchedule().cron("*/15 * * * * ?").definition()));
    }
    int claimedByA = 0;
    int claimedByB = 0;
    // Two threads of their own: the common pool may have one thread (it has on 2 cores), which
    // would run the two passes one after the other.
    try (var other = fx.otherProcess();
        var threads = java.util.concurrent.Executors.newFixedThreadPool(2)) {
      Planner a = fx.planner();
      Planner b = fx.planner(other, new MetricRegistry());
      for (int round = 0; round < 6; round++) {
        int due = dueSchedules();
        var together = new java.util.concurrent.CyclicBarrier(2);
        var pa = threads.submit(() -> passAfter(together, a));
        var pb = threads.submit(() -> passAfter(together, b));
        Planner.Pass passA = pa.get();
        Planner.Pass passB = pb.get();
        // Every due schedule was claimed by exactly one of them, and none twice.
        assertThat(passA.schedules() + passB.schedules()).as("round %d", round).isEqualTo(due);
        assertThat(passA.duplicates() + passB.duplicates()).isZero();
        claimedByA += passA.schedules();
        claimedByB += passB.schedules();
        clock.advance(Duration.ofSeconds(20));
      }
    }

    // Both did work: the schedules were split between them, not planned by one while the other
    // found nothing.
    assertThat(claimedByA).isPositive();
    assertThat(claimedByB).isPositive();
    // Each occurrence on record became exactly one job, and every job has its occurrence.
    assertThat(fx.occurrencesWithoutExactlyOneJob()).isEmpty();
    // Every schedule has each of its fire times once, with no gap, and the first one not yet
    // materialised is more than half a look-ahead past the last pass.
    Instant lastPass = clock.instant().minusSeconds(20);
    for (Schedule s : all) {
      List<Instant> fired = fx.occurrencesOf(s.id(), null);
      List<Instant> expected = s.fireTimes().list(MONDAY_TEN, fired.size());
      assertThat(fired)
          .as("schedule %s", s.definition().name())
          .containsExactlyElementsOf(expected);
      assertThat(s.fireTimes().nextAfter(fired.get(fired.size() - 1)).orElseThrow())
          .isAfter(lastPass.plus(fx.settings.lookAhead.dividedBy(2)));
    }
  }

  /** A pass once both planners are ready to start one, so that they run at the same time. */
  private static Planner.Pass passAfter(java.util.concurrent.CyclicBarrier barrier, Planner p) {
    try {
      barrier.await(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return p.runOnce();
  }

  private int dueSchedules() {
    return fx.stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM schedules WHERE status = 'ACTIVE' AND plan_at <= :now")
                    .bind("now", clock.instant())
                    .mapTo(Integer.class)
                    .one());
  }

  @Test
  void aLongPassMisfiresNothingButARealOutageDoes() throws Exception {
    // 120 schedules due at once, planned 10 per batch by a planner whose clock moves 3 s per
    // batch: the pass lasts 36 s and reaches the last schedules' first fire time (10:00:00) about
    // 33 s late, far past the 10 s threshold. The planner never stopped: nothing was missed.
    fx.settings.batchSize = 10;
    List<Schedule> all = new java.util.ArrayList<>();
    for (int i = 0; i < 120; i++) {
      all.add(
          fx.schedules.create(
              "default",
              aSchedule()
                  .every(Duration.ofSeconds(10))
                  .misfire(i % 2 == 0 ? MisfirePolicy.SKIP : MisfirePolicy.FIRE_ONCE)
                  .definition()));
    }
    try (var busy = fx.otherProcess(new SteppingClock(clock, Duration.ofSeconds(3)))) {
      Planner planner = fx.planner(busy, new MetricRegistry());

      Planner.Pass pass = planner.runOnce();

      assertThat(pass.schedules()).isEqualTo(120);
      assertThat(pass.misfires()).isZero();
      assertThat(clock.instant()).isAfter(MONDAY_TEN.plusSeconds(36)); // 13 reads, 3 s each
      for (Schedule s : all) {
        assertThat(fx.recorded(s.id(), "missed")).as(s.definition().name()).isEmpty();
        List<Job> jobs = fx.jobsOf(s.id());
        // Each from 10:00:00, in a row; the late ones due at their fire time (so run now).
        assertThat(jobs.get(0).occurrenceAt()).isEqualTo(MONDAY_TEN);
        assertThat(jobs)
            .extracting(Job::occurrenceAt)
            .containsExactlyElementsOf(
                everyTenSeconds(MONDAY_TEN, jobs.get(jobs.size() - 1).occurrenceAt()));
        assertThat(jobs).allSatisfy(j -> assertThat(j.runAt()).isEqualTo(j.occurrenceAt()));
      }
      // The last batch was planned 36 s into the pass: its look-ahead reaches further.
      assertThat(all.stream().mapToInt(s -> fx.jobsOf(s.id()).size()).max().orElseThrow())
          .isGreaterThan(7);

      // Now every planner is down for five minutes: that is an outage, and its fire times were
      // missed.
      clock.advance(Duration.ofMinutes(5));
      Instant comeback = clock.instant();
      Planner.Pass after = fx.planner().runOnce();

      assertThat(after.misfires()).isEqualTo(120);
      for (Schedule s : all) {
        boolean skip = s.definition().misfire() == MisfirePolicy.SKIP;
        assertThat(fx.recorded(s.id(), "missed")).as(s.definition().name()).hasSize(skip ? 1 : 0);
        assertThat(fx.jobsOf(s.id()).stream().filter(j -> j.runAt().equals(comeback)).count())
            .as("catch-up runs due at the comeback, %s", s.definition().name())
            .isEqualTo(skip ? 0 : 1);
      }
    }
  }

  @Test
  void anOccurrenceAlreadyOnRecordIsNeverMaterialisedAgain() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    Planner planner = fx.planner();
    planner.runOnce();
    // Put the schedule back as if its last pass had not happened (a bug, a restored backup...).
    fx.stack
        .database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "UPDATE schedules SET next_fire_at = :t, plan_at = :t WHERE id = :id")
                    .bind("t", MONDAY_TEN)
                    .bind("id", s.id())
                    .execute());

    Planner.Pass again = planner.runOnce();

    assertThat(again.duplicates()).isEqualTo(7);
    assertThat(again.jobs()).isZero();
    assertThat(fx.jobsOf(s.id())).hasSize(7);
  }

  @Test
  void pauseCancelsWhatWasMaterialisedAndResumeStartsOverFromNow() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    Planner planner = fx.planner();
    planner.runOnce();
    clock.advance(Duration.ofSeconds(5)); // 10:00:00 is due (and will run); the rest is future

    Changed paused = fx.schedules.pause("default", s.id()).orElseThrow();

    assertThat(paused.schedule().status()).isEqualTo(ScheduleStatus.PAUSED);
    assertThat(paused.cancelled()).hasSize(6);
    assertThat(fx.occurrencesOf(s.id(), JobState.PENDING)).containsExactly(MONDAY_TEN);
    assertThat(fx.occurrencesOf(s.id(), JobState.CANCELLED)).hasSize(6);
    clock.advance(Duration.ofMinutes(5));
    assertThat(planner.runOnce().jobs()).isZero();

    Changed resumed = fx.schedules.resume("default", s.id()).orElseThrow();
    Instant resumedAt = clock.instant(); // 10:05:05
    assertThat(resumed.schedule().status()).isEqualTo(ScheduleStatus.ACTIVE);
    Planner.Pass pass = planner.runOnce();

    // No catch-up for the paused stretch: from 10:05:10 on, a look-ahead's worth.
    assertThat(pass.misfires()).isZero();
    assertThat(fx.occurrencesOf(s.id(), JobState.PENDING))
        .containsExactlyElementsOf(
            concat(
                List.of(MONDAY_TEN),
                everyTenSeconds(Instant.parse("2030-01-07T10:05:10Z"), resumedAt.plusSeconds(60))));
  }

  @Test
  void fireOnceAfterDowntimeMakesOneCatchUpRun() {
    Schedule s =
        fx.schedules.create(
            "default", aSchedule().cron("* * * * *").misfire(MisfirePolicy.FIRE_ONCE).definition());
    Planner planner = fx.planner();
    planner.runOnce(); // 10:00, 10:01
    clock.advance(Duration.ofHours(1)); // everything down for an hour

    Planner.Pass pass = planner.runOnce();

    assertThat(pass.misfires()).isEqualTo(1);
    List<Job> jobs = fx.jobsOf(s.id());
    Job catchUp = jobs.get(2);
    assertThat(catchUp.occurrenceAt()).isEqualTo(Instant.parse("2030-01-07T10:02:00Z"));
    assertThat(catchUp.runAt()).isEqualTo(clock.instant());
    assertThat(jobs.subList(3, jobs.size()))
        .extracting(Job::occurrenceAt)
        .containsExactly(
            Instant.parse("2030-01-07T11:00:00Z"), Instant.parse("2030-01-07T11:01:00Z"));
    assertThat(fx.metrics.meter("punctual.planner.misfires").getCount()).isEqualTo(1);
  }

  @Test
  void aDeactivatedNamespacesSchedulesWaitAndTheirMisfirePolicyDecidesOnReactivation() {
    Jdbi jdbi = fx.stores.database().jdbi();
    Namespaces namespaces = new Namespaces(jdbi, clock);
    namespaces.ensure("paused-tenant");
    Schedule s =
        fx.schedules.create(
            "paused-tenant",
            aSchedule().cron("* * * * *").misfire(MisfirePolicy.FIRE_ONCE).definition());
    Planner planner = fx.planner();
    planner.runOnce(); // 10:00, 10:01
    assertThat(fx.jobsOf(s.id())).hasSize(2);
    assertThat(namespaces.setActive("paused-tenant", false)).isPresent();
    OccurrenceWriter writer =
        new OccurrenceWriter(
            jdbi, new ScheduleJobs(jdbi, fx.stores.submissions(), fx.stores.queries(), clock));

    clock.advance(Duration.ofHours(1));
    Planner.Pass whileInactive = planner.runOnce();

    assertThat(whileInactive.schedules()).isZero();
    assertThat(whileInactive.misfires()).isZero();
    assertThat(fx.jobsOf(s.id())).hasSize(2);
    assertThat(writer.nextPlanAt()).as("nothing to wake the planner for").isEmpty();

    assertThat(namespaces.setActive("paused-tenant", true)).isPresent();
    Planner.Pass reactivated = planner.runOnce();

    assertThat(reactivated.misfires()).isEqualTo(1);
    List<Job> jobs = fx.jobsOf(s.id());
    assertThat(jobs.get(2).occurrenceAt()).isEqualTo(Instant.parse("2030-01-07T10:02:00Z"));
    assertThat(jobs.get(2).runAt()).isEqualTo(clock.instant());
    assertThat(jobs.subList(3, jobs.size()))
        .extracting(Job::occurrenceAt)
        .containsExactly(
            Instant.parse("2030-01-07T11:00:00Z"), Instant.parse("2030-01-07T11:01:00Z"));
  }

  @Test
  void fireAllAndSkipAfterDowntime() {
    fx.settings.fireAllCap = 10;
    Schedule all =
        fx.schedules.create(
            "default",
            aSchedule().cron("*/5 * * * *").misfire(MisfirePolicy.FIRE_ALL).definition());
    Schedule skip =
        fx.schedules.create(
            "default", aSchedule().cron("*/5 * * * *").misfire(MisfirePolicy.SKIP).definition());
    Planner planner = fx.planner();
    planner.runOnce(); // 10:00 each
    clock.advance(Duration.ofMinutes(30)); // 10:05 .. 10:25 missed

    planner.runOnce();

    assertThat(fx.occurrencesOf(all.id(), null))
        .containsExactly(
            MONDAY_TEN,
            Instant.parse("2030-01-07T10:05:00Z"),
            Instant.parse("2030-01-07T10:10:00Z"),
            Instant.parse("2030-01-07T10:15:00Z"),
            Instant.parse("2030-01-07T10:20:00Z"),
            Instant.parse("2030-01-07T10:25:00Z"),
            Instant.parse("2030-01-07T10:30:00Z"));
    assertThat(fx.occurrencesOf(skip.id(), null))
        .containsExactly(MONDAY_TEN, Instant.parse("2030-01-07T10:30:00Z"));
    assertThat(fx.recorded(skip.id(), "missed"))
        .containsExactly(Instant.parse("2030-01-07T10:05:00Z"));
  }

  @Test
  void fireAllBeyondItsCapRunsNothingMoreAndRecordsTheFirstLeftOut() {
    fx.settings.fireAllCap = 3;
    Schedule s =
        fx.schedules.create(
            "default",
            aSchedule().cron("*/5 * * * *").misfire(MisfirePolicy.FIRE_ALL).definition());
    Planner planner = fx.planner();
    planner.runOnce(); // 10:00
    clock.advance(Duration.ofMinutes(30)); // 10:05 .. 10:25 missed; back at 10:30

    Planner.Pass pass = planner.runOnce();

    assertThat(pass.misfires()).isEqualTo(1);
    List<Job> jobs = fx.jobsOf(s.id());
    assertThat(jobs)
        .extracting(Job::occurrenceAt, Job::runAt)
        .containsExactly(
            tuple(MONDAY_TEN, MONDAY_TEN),
            tuple(Instant.parse("2030-01-07T10:05:00Z"), clock.instant()),
            tuple(Instant.parse("2030-01-07T10:10:00Z"), clock.instant()),
            tuple(Instant.parse("2030-01-07T10:15:00Z"), clock.instant()),
            tuple(Instant.parse("2030-01-07T10:30:00Z"), Instant.parse("2030-01-07T10:30:00Z")));
    // 10:20 and 10:25 do not run; 10:20, the first of them, is the one on record.
    assertThat(fx.recorded(s.id(), "missed"))
        .containsExactly(Instant.parse("2030-01-07T10:20:00Z"));
  }

  @Test
  void overlapSkipLeavesOutFireTimesWhileThePreviousRunIsGoing() {
    Schedule s =
        fx.schedules.create(
            "default",
            aSchedule().every(Duration.ofSeconds(10)).overlap(OverlapPolicy.SKIP).definition());
    Planner planner = fx.planner();

    assertThat(planner.runOnce().jobs()).isEqualTo(1); // only 10:00:00, due now
    Job first = fx.jobsOf(s.id()).get(0);
    fx.stores.transitions().claim(List.of(first.id()), "w-1"); // slow: still running 10 s later
    clock.advance(Duration.ofSeconds(10));

    Planner.Pass busy = planner.runOnce();
    assertThat(busy.jobs()).isZero();
    assertThat(busy.skipped()).isEqualTo(1);
    assertThat(fx.recorded(s.id(), "skipped_overlap")).containsExactly(MONDAY_TEN.plusSeconds(10));

    fx.stores
        .transitions()
        .finish(
            List.of(
                new Completion(
                    first.id(),
                    1,
                    JobState.SUCCEEDED,
                    null,
                    ExecutionStatus.SUCCEEDED,
                    clock.instant(),
                    10_000,
                    null,
                    null,
                    null,
                    List.of())));
    clock.advance(Duration.ofSeconds(10));
    assertThat(planner.runOnce().jobs()).isEqualTo(1);
    assertThat(fx.occurrencesOf(s.id(), null))
        .containsExactly(MONDAY_TEN, MONDAY_TEN.plusSeconds(20));
  }

  @Test
  void aFailingRunDoesNotHoldBackTheNextOccurrence() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(30)).definition());
    Planner planner = fx.planner();
    planner.runOnce();
    Job first = fx.jobsOf(s.id()).get(0);
    fx.stores.transitions().claim(List.of(first.id()), "w-1");
    fx.stores
        .transitions()
        .finish(
            List.of(
                new Completion(
                    first.id(),
                    1,
                    JobState.FAILED,
                    null,
                    ExecutionStatus.FAILED,
                    clock.instant(),
                    5,
                    "boom",
                    null,
                    null,
                    List.of())));

    clock.advance(Duration.ofSeconds(60));
    planner.runOnce();

    assertThat(fx.occurrencesOf(s.id(), JobState.PENDING))
        .containsExactly(
            MONDAY_TEN.plusSeconds(30),
            MONDAY_TEN.plusSeconds(60),
            MONDAY_TEN.plusSeconds(90),
            MONDAY_TEN.plusSeconds(120));
  }

  @Test
  void redefiningCancelsTheOldFutureOccurrencesAndPlansTheNewOnes() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    Planner planner = fx.planner();
    planner.runOnce();
    clock.advance(Duration.ofSeconds(15));

    Changed changed =
        fx.schedules
            .redefine(
                "default",
                s.id(),
                aSchedule().name(s.definition().name()).cron("*/20 * * * * ?").definition())
            .orElseThrow();
    planner.runOnce();

    assertThat(changed.cancelled()).hasSize(5); // 10:00:20 .. 10:01:00
    assertThat(fx.occurrencesOf(s.id(), JobState.CANCELLED))
        .containsExactlyElementsOf(
            everyTenSeconds(MONDAY_TEN.plusSeconds(20), MONDAY_TEN.plusSeconds(60)));
    // 10:00:00 and 10:00:10 had come: they stay. The new definition from 10:00:20 to 10:01:15.
    assertThat(fx.occurrencesOf(s.id(), JobState.PENDING))
        .containsExactly(
            MONDAY_TEN,
            MONDAY_TEN.plusSeconds(10),
            MONDAY_TEN.plusSeconds(20),
            MONDAY_TEN.plusSeconds(40),
            MONDAY_TEN.plusSeconds(60));
  }

  @Test
  void deletingCancelsFutureOccurrencesAndTheScheduleIsGone() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    fx.planner().runOnce();
    clock.advance(Duration.ofSeconds(1));

    assertThat(fx.schedules.delete("default", s.id()).orElseThrow().cancelled()).hasSize(6);

    assertThat(fx.schedules.find("default", s.id())).isEmpty();
    assertThat(fx.occurrencesOf(s.id(), JobState.CANCELLED)).hasSize(6);
    assertThat(fx.occurrencesOf(s.id(), JobState.PENDING)).containsExactly(MONDAY_TEN);
    assertThat(fx.schedules.delete("default", s.id())).isEmpty();
  }

  @Test
  void aDaylightSavingGapTimeFiresOnceShiftedThroughThePlanner() {
    clock.set(Instant.parse("2030-03-31T00:00:00Z")); // Paris springs forward at 01:00Z
    fx.settings.lookAhead = Duration.ofHours(4);
    Schedule s = createIn("30 2 * * *", "Europe/Paris", DstPolicy.DEFAULT);

    fx.planner().runOnce();

    assertThat(fx.occurrencesOf(s.id(), null))
        .containsExactly(Instant.parse("2030-03-31T01:30:00Z")); // 03:30 CEST
  }

  @Test
  void theRepeatedHourOfAParisFallBackFiresOnceOrTwiceAsAskedThroughThePlanner() {
    // 2030-10-27: at 01:00Z Paris goes from 03:00 CEST back to 02:00 CET; 02:30 happens twice.
    clock.set(Instant.parse("2030-10-27T00:00:00Z"));
    fx.settings.lookAhead = Duration.ofHours(4);
    Schedule first = createIn("30 2 * * *", "Europe/Paris", DstPolicy.DEFAULT);
    Schedule both =
        createIn(
            "30 2 * * *",
            "Europe/Paris",
            new DstPolicy(DstPolicy.Gap.SHIFT, DstPolicy.Overlap.BOTH));
    Schedule halfHourly = createIn("*/30 * * * *", "Europe/Paris", DstPolicy.DEFAULT);

    fx.planner().runOnce();

    assertThat(fx.occurrencesOf(first.id(), null))
        .containsExactly(Instant.parse("2030-10-27T00:30:00Z")); // 02:30 CEST only
    assertThat(fx.occurrencesOf(both.id(), null))
        .containsExactly(
            Instant.parse("2030-10-27T00:30:00Z"), // 02:30 CEST
            Instant.parse("2030-10-27T01:30:00Z")); // 02:30 CET
    // Not at 02:00 and 02:30 CET (01:00Z, 01:30Z): the second pass through the hour.
    assertThat(fx.occurrencesOf(halfHourly.id(), null))
        .containsExactly(
            Instant.parse("2030-10-27T00:00:00Z"), // 02:00 CEST
            Instant.parse("2030-10-27T00:30:00Z"), // 02:30 CEST
            Instant.parse("2030-10-27T02:00:00Z"), // 03:00 CET
            Instant.parse("2030-10-27T02:30:00Z"),
            Instant.parse("2030-10-27T03:00:00Z"),
            Instant.parse("2030-10-27T03:30:00Z"),
            Instant.parse("2030-10-27T04:00:00Z"));
    assertThat(fx.jobsOf(both.id()))
        .allSatisfy(j -> assertThat(j.runAt()).isEqualTo(j.occurrenceAt()));
  }

  @Test
  void newYorksSpringForwardShiftsOrSkipsTheGapThroughThePlanner() {
    // 2030-03-10: at 07:00Z New York jumps from 02:00 EST to 03:00 EDT; 02:30 does not exist.
    clock.set(Instant.parse("2030-03-10T05:00:00Z"));
    fx.settings.lookAhead = Duration.ofHours(4);
    Schedule shift = createIn("30 2 * * *", "America/New_York", DstPolicy.DEFAULT);
    Schedule skip =
        createIn(
            "30 2 * * *",
            "America/New_York",
            new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.FIRST));

    fx.planner().runOnce();

    assertThat(fx.occurrencesOf(shift.id(), null))
        .containsExactly(Instant.parse("2030-03-10T07:30:00Z")); // 03:30 EDT
    assertThat(fx.occurrencesOf(skip.id(), null)).isEmpty();
    assertThat(fx.schedules.find("default", skip.id()).orElseThrow().nextFireAt())
        .isEqualTo(Instant.parse("2030-03-11T06:30:00Z")); // 02:30 EDT the next day
  }

  @Test
  void newYorksFallBackFiresTheRepeatedHourOnceOrTwiceAsAskedThroughThePlanner() {
    // 2030-11-03: at 06:00Z New York goes from 02:00 EDT back to 01:00 EST; 01:xx happens twice.
    clock.set(Instant.parse("2030-11-03T04:00:00Z"));
    fx.settings.lookAhead = Duration.ofHours(4);
    Schedule first = createIn("30 1 * * *", "America/New_York", DstPolicy.DEFAULT);
    Schedule both =
        createIn(
            "30 1 * * *",
            "America/New_York",
            new DstPolicy(DstPolicy.Gap.SHIFT, DstPolicy.Overlap.BOTH));
    Schedule hourly = createIn("0 * * * *", "America/New_York", DstPolicy.DEFAULT);

    fx.planner().runOnce();

    assertThat(fx.occurrencesOf(first.id(), null))
        .containsExactly(Instant.parse("2030-11-03T05:30:00Z")); // 01:30 EDT
    assertThat(fx.occurrencesOf(both.id(), null))
        .containsExactly(
            Instant.parse("2030-11-03T05:30:00Z"), // 01:30 EDT
            Instant.parse("2030-11-03T06:30:00Z")); // 01:30 EST
    assertThat(fx.occurrencesOf(hourly.id(), null))
        .containsExactly(
            Instant.parse("2030-11-03T04:00:00Z"), // 00:00 EDT
            Instant.parse("2030-11-03T05:00:00Z"), // 01:00 EDT (not 01:00 EST, 06:00Z)
            Instant.parse("2030-11-03T07:00:00Z"), // 02:00 EST
            Instant.parse("2030-11-03T08:00:00Z")); // 03:00 EST
  }

  private Schedule createIn(String cron, String zone, DstPolicy dst) {
    return fx.schedules.create("default", aSchedule().cron(cron).zone(zone).dst(dst).definition());
  }

  @Test
  void declaredSchedulesAreRegisteredOnceHoweverOftenAndByWhomeverStartedAndTheyFire()
      throws Exception {
    // As in planner.schedules: one in the default namespace (a payload with a number jsonb
    // rewrites), one in another namespace.
    List<DeclaredSchedule> declared =
        List.of(
            new DeclaredSchedule(
                "default",
                aSchedule()
                    .name("close-day")
                    .initIdentifier("billing.close-day")
                    .every(Duration.ofSeconds(20))
                    .payload(Json.readTree("{\"batch\":1e3}"))
                    .definition()),
            new DeclaredSchedule(
                "ops",
                aSchedule()
                    .name("ping")
                    .initIdentifier("ops.ping")
                    .cron("*/30 * * * * ?")
                    .definition()));

    // Started once...
    MetricRegistry firstRun = new MetricRegistry();
    try (Planner first = declaring(fx.stores, firstRun, "planner-a", declared)) {
      first.start();
      awaitPass(firstRun);
    }
    // ...then restarted, while a second planner process starts with the same configuration.
    MetricRegistry restartRun = new MetricRegistry();
    MetricRegistry secondRun = new MetricRegistry();
    try (var other = fx.otherProcess();
        Planner restarted = declaring(fx.stores, restartRun, "planner-a", declared);
        Planner second = declaring(other, secondRun, "planner-b", declared)) {
      restarted.start();
      second.start();
      awaitPass(restartRun);
      awaitPass(secondRun);
    }

    List<Schedule> registered =
        List.of(
                fx.schedules.list("default", null, null, 10).items(),
                fx.schedules.list("ops", null, null, 10).items())
            .stream()
            .flatMap(List::stream)
            .toList();
    assertThat(registered)
        .extracting(r -> r.namespace() + "/" + r.definition().initIdentifier())
        .containsExactlyInAnyOrder("default/billing.close-day", "ops/ops.ping");
    for (Schedule r : registered) {
      // Registered once and never redefined by the restarts (which would cancel its jobs).
      assertThat(r.updatedAt()).as(r.definition().name()).isEqualTo(r.createdAt());
      List<Job> jobs = fx.jobsOf(r.id());
      assertThat(jobs).allSatisfy(j -> assertThat(j.status()).isEqualTo(JobState.PENDING));
      assertThat(jobs)
          .extracting(Job::occurrenceAt)
          .as("each fire time of the look-ahead once, %s", r.definition().name())
          .containsExactlyElementsOf(r.fireTimes().list(MONDAY_TEN, jobs.size()))
          .last()
          .isEqualTo(MONDAY_TEN.plusSeconds(60)); // the whole look-ahead
    }
    Schedule closeDay =
        registered.stream().filter(r -> r.namespace().equals("default")).findFirst().orElseThrow();
    assertThat(fx.jobsOf(closeDay.id())).hasSize(4); // 10:00:00, :20, :40, 10:01:00
    assertThat(fx.jobsOf(closeDay.id())).allSatisfy(j -> assertThat(fx.queued(j.id())).isTrue());
    assertThat(fx.jobsOf(closeDay.id()).get(0).payload().get("batch").asInt()).isEqualTo(1000);
  }

  private Planner declaring(
      io.punctual.queue.Stores stores,
      MetricRegistry metrics,
      String holder,
      List<DeclaredSchedule> declared) {
    return PlannerWiring.planner(stores, fx.settings, metrics, holder, declared);
  }

  private static void awaitPass(MetricRegistry metrics) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> metrics.timer("punctual.planner.pass").getCount() >= 1);
  }

  @Test
  void reRegisteringAnUnchangedDeclarationLeavesItAndItsJobsAlone() {
    // A declaration as written: numbers as the author typed them, keys in their order, durations
    // finer than the milliseconds the table keeps. Stored, it reads back as 1000, 1.50, keys
    // reordered, 10 s and 30 s: not equal() to what was declared.
    ScheduleDefinition declared =
        aSchedule()
            .name("report")
            .initIdentifier("svc.report")
            .every(Duration.ofSeconds(10).plusNanos(400_000))
            .timeout(Duration.ofSeconds(30).plusNanos(900_000))
            .payload(
                Json.readTree("{\"limit\":1e3,\"ratio\":1.50,\"opts\":{\"b\":[1,2],\"a\":true}}"))
            .definition();
    Registered first = fx.schedules.register("default", declared);
    fx.planner().runOnce();
    List<Job> planned = fx.jobsOf(first.schedule().id());
    clock.advance(Duration.ofSeconds(1));

    Registered again = fx.schedules.register("default", declared);
    Registered reordered =
        fx.schedules.register(
            "default",
            withPayload(
                declared, "{\"opts\":{\"a\":true,\"b\":[1,2]},\"ratio\":1.5,\"limit\":1000}"));

    assertThat(first.registration()).isEqualTo(Registration.CREATED);
    assertThat(again.schedule().definition()).isNotEqualTo(declared); // what equals() would say
    assertThat(again.registration()).isEqualTo(Registration.UNCHANGED);
    assertThat(reordered.registration()).isEqualTo(Registration.UNCHANGED);
    assertThat(again.cancelled()).isEmpty();
    assertThat(reordered.cancelled()).isEmpty();
    assertThat(planned).hasSize(7); // 10:00:00 .. 10:01:00
    assertThat(fx.jobsOf(first.schedule().id()))
        .extracting(Job::id, Job::status)
        .containsExactlyElementsOf(
            planned.stream().map(j -> tuple(j.id(), JobState.PENDING)).toList());

    // A real change is still one: the payload's number, or the interval by a millisecond.
    Registered payloadChanged =
        fx.schedules.register(
            "default",
            withPayload(
                declared, "{\"limit\":1001,\"ratio\":1.5,\"opts\":{\"a\":true,\"b\":[1,2]}}"));
    Registered intervalChanged =
        fx.schedules.register(
            "default",
            aSchedule()
                .name("report")
                .initIdentifier("svc.report")
                .every(Duration.ofMillis(10_001))
                .timeout(Duration.ofSeconds(30))
                .payload(payloadChanged.schedule().definition().job().payload())
                .definition());
    assertThat(payloadChanged.registration()).isEqualTo(Registration.UPDATED);
    assertThat(payloadChanged.cancelled()).hasSize(6); // 10:00:10 .. 10:01:00 had not come
    assertThat(intervalChanged.registration()).isEqualTo(Registration.UPDATED);
  }

  private static ScheduleDefinition withPayload(ScheduleDefinition d, String json) {
    JobTemplate j = d.job();
    return new ScheduleDefinition(
        d.name(),
        d.initIdentifier(),
        d.cron(),
        d.every(),
        d.zone(),
        d.dst(),
        d.startAt(),
        d.endAt(),
        d.misfire(),
        d.overlap(),
        new JobTemplate(
            j.type(),
            Json.readTree(json),
            j.priority(),
            j.maxAttempts(),
            j.backoff(),
            j.timeout(),
            j.tags(),
            j.callback()));
  }

  private static List<Instant> concat(List<Instant> a, List<Instant> b) {
    List<Instant> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @SuppressWarnings("unused")
  private static UUID id(Job job) {
    return job.id();
  }

  @Test
  void aJobWaitingForAnOccurrenceThatPausingCancelsIsJudgedAtOnce() {
    Schedule s =
        fx.schedules.create("default", aSchedule().every(Duration.ofSeconds(10)).definition());
    fx.planner().runOnce();
    Job future = fx.jobsOf(s.id()).get(fx.jobsOf(s.id()).size() - 1);
    Job optional =
        fx.stores
            .submissions()
            .submit(
                List.of(
                    aJob()
                        .runAt(clock.instant())
                        .waitsFor(Upstream.stored(future.id(), RunCondition.ALWAYS))
                        .build()))
            .get(0)
            .job();
    assertThat(optional.status()).isEqualTo(JobState.BLOCKED);

    Changed paused = fx.schedules.pause("default", s.id()).orElseThrow();

    assertThat(paused.released()).extracting(e -> e.id()).containsExactly(optional.id());
    assertThat(fx.stores.queries().find("default", optional.id()).orElseThrow().status())
        .isEqualTo(JobState.PENDING);
  }
}
