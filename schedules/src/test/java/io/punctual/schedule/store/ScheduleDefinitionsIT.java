package io.punctual.schedule.store;

import static io.punctual.schedule.testing.Schedules.aSchedule;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.store.ScheduleDefinitions.Registration;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Schedule definitions and the runs triggered by hand, against real PostgreSQL. */
class ScheduleDefinitionsIT {
  private final TestClock clock = new TestClock(Instant.parse("2030-01-07T10:00:00Z"));
  private final StoreStack stack = new StoreStack(clock);
  private final ScheduleJobs jobs =
      new ScheduleJobs(stack.database.jdbi(), stack.submissions, stack.queries, clock);
  private final ScheduleDefinitions schedules =
      new ScheduleDefinitions(stack.database.jdbi(), jobs, clock);

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void triggerRunsOnceNowOutsideTheFireTimes() {
    Schedule s = schedules.create("default", aSchedule().cron("0 3 * * *").definition()); // nightly
    clock.advance(Duration.ofSeconds(7));

    Job job = jobs.trigger("default", s.id()).orElseThrow();

    assertThat(job.scheduleId()).isEqualTo(s.id());
    assertThat(job.occurrenceAt()).isNull();
    assertThat(job.runAt()).isEqualTo(clock.instant());
    assertThat(jobs.trigger("other", s.id())).isEmpty();
  }

  @Test
  void registeringTwiceKeepsOneScheduleAndAChangeRedefinesIt() {
    var definition = aSchedule().name("nightly").initIdentifier("svc.nightly").cron("0 3 * * *");

    var first = schedules.register("default", definition.definition());
    var again = schedules.register("default", definition.definition());
    var changed = schedules.register("default", definition.cron("0 4 * * *").definition());

    assertThat(first.registration()).isEqualTo(Registration.CREATED);
    assertThat(again.registration()).isEqualTo(Registration.UNCHANGED);
    assertThat(changed.registration()).isEqualTo(Registration.UPDATED);
    assertThat(again.schedule().id()).isEqualTo(first.schedule().id());
    assertThat(changed.schedule().definition().cron()).isEqualTo("0 4 * * *");
    assertThat(schedules.list("default", null, null, 10).items()).hasSize(1);
  }
}
