package io.punctual.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.client.DstPolicy;
import io.punctual.client.JobPage;
import io.punctual.client.JobStatus;
import io.punctual.client.JobView;
import io.punctual.client.MisfirePolicy;
import io.punctual.client.OverlapPolicy;
import io.punctual.client.PunctualApiException;
import io.punctual.client.PunctualClient;
import io.punctual.client.SchedulePage;
import io.punctual.client.ScheduleRequest;
import io.punctual.client.ScheduleView;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.PlannerWiring;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Java client's schedule methods against the real API. */
class ScheduleClientIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static PunctualClient client(String namespace) {
    return PunctualClient.create(FIXTURE.baseUri(), namespace).withApiKey(ApiFixture.ADMIN_KEY);
  }

  private static void plan() {
    PlannerWiring.planner(FIXTURE.stores, new PlannerSettings(), new MetricRegistry()).runOnce();
  }

  @Test
  void createsReadsListsAndPreviewsASchedule() {
    PunctualClient client = client("client-sched");
    ScheduleView created =
        client.createSchedule(
            ScheduleRequest.cron("standup", "0 9 * * MON-FRI", "remind")
                .timezone("America/New_York")
                .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.FIRST))
                .misfire(MisfirePolicy.SKIP)
                .overlap(OverlapPolicy.SKIP)
                .payload(Map.of("channel", "#team"))
                .build());

    assertThat(created.name()).isEqualTo("standup");
    assertThat(created.timezone()).isEqualTo("America/New_York");
    assertThat(created.dst().gap()).isEqualTo(DstPolicy.Gap.SKIP);
    assertThat(created.misfire()).isEqualTo(MisfirePolicy.SKIP);
    assertThat(created.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(created.payload().get("channel").asText()).isEqualTo("#team");
    assertThat(client.getSchedule(created.id())).isEqualTo(created);

    // New York moves to summer time on Sunday 2030-03-10: 09:00 is 14:00Z, then 13:00Z.
    assertThat(client.previewSchedule(created.id(), 2, Instant.parse("2030-03-08T00:00:00Z")))
        .containsExactly(
            Instant.parse("2030-03-08T14:00:00Z"), Instant.parse("2030-03-11T13:00:00Z"));

    client.createSchedule(ScheduleRequest.every("tick", Duration.ofMinutes(5), "noop").build());
    SchedulePage first = client.listSchedules(1, null);
    assertThat(first.items()).extracting(ScheduleView::name).containsExactly("standup");
    SchedulePage second = client.listSchedules(1, first.nextCursor());
    assertThat(second.items()).extracting(ScheduleView::name).containsExactly("tick");
    assertThat(second.hasMore()).isFalse();
  }

  @Test
  void pausesResumesTriggersUpdatesAndDeletes() {
    PunctualClient client = client("client-sched-life");
    ScheduleView s =
        client.createSchedule(
            ScheduleRequest.every("beat", Duration.ofSeconds(10), "noop").build());
    plan();
    JobPage jobs = client.scheduleJobs(s.id(), JobStatus.PENDING, 20, null);
    assertThat(jobs.items()).isNotEmpty();
    assertThat(jobs.items()).allSatisfy(j -> assertThat(j.scheduleId()).isEqualTo(s.id()));
    FIXTURE.clock.advance(Duration.ofMillis(1));

    ScheduleView paused = client.pauseSchedule(s.id());
    assertThat(paused.isPaused()).isTrue();
    assertThat(paused.nextFireAt()).isNull();
    assertThat(client.resumeSchedule(s.id()).isPaused()).isFalse();

    JobView triggered = client.triggerSchedule(s.id());
    assertThat(triggered.scheduleId()).isEqualTo(s.id());
    assertThat(triggered.occurrenceAt()).isNull();

    ScheduleView updated =
        client.updateSchedule(
            s.id(), ScheduleRequest.cron("beat", "*/15 * * * * ?", "noop").build());
    assertThat(updated.cron()).isEqualTo("*/15 * * * * ?");
    assertThat(updated.every()).isNull();

    plan();
    assertThat(client.deleteSchedule(s.id())).isPositive();
    assertThatThrownBy(() -> client.getSchedule(s.id()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
  }

  @Test
  void invalidSchedulesBecomeApiExceptionsNamingTheField() {
    assertThatThrownBy(
            () ->
                client("client-sched-bad")
                    .createSchedule(
                        ScheduleRequest.cron("x", "0 9 * * *", "noop")
                            .timezone("Europe/Pariss")
                            .build()))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.field()).isEqualTo("timezone");
            });
  }
}
