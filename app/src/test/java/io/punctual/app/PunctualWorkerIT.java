package io.punctual.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.punctual.client.JobRequest;
import io.punctual.model.JobState;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The worker as a library: the application's handler objects, on its own pool. */
class PunctualWorkerIT {
  private EmbeddedHarness app;

  @BeforeEach
  void setUp() {
    app = new EmbeddedHarness();
  }

  @AfterEach
  void tearDown() throws Exception {
    app.close();
  }

  private UUID submit(String type) throws Exception {
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      Submission s = app.jobs.submit(c, JobRequest.builder(type).build());
      c.commit();
      s.enqueue();
      return s.id();
    }
  }

  @Test
  void runsTheApplicationsHandlerObjectsAndLeavesItsPoolOpen() throws Exception {
    RecordingHandler reports = new RecordingHandler("report.build");
    RecordingHandler mails = new RecordingHandler("mail.send");
    PunctualWorker worker = app.worker().handler(reports).handler(mails).concurrency(8).build();
    PunctualHealth before = worker.health(Duration.ofSeconds(2));
    assertThat(before.postgres()).isTrue();
    assertThat(before.redis()).isTrue();
    assertThat(before.claimLoop()).isFalse();
    assertThat(before.up()).isFalse();
    worker.start();
    PunctualHealth started = worker.health(Duration.ofSeconds(2));
    assertThat(started.up()).as("%s", started).isTrue();
    assertThat(started.problems()).isEmpty();
    assertThat(app.jobs.health(Duration.ofSeconds(2)).up()).isTrue();
    UUID report = submit("report.build");
    UUID mail = submit("mail.send");
    await().atMost(Duration.ofSeconds(10)).until(() -> app.status(report) == JobState.SUCCEEDED);
    await().atMost(Duration.ofSeconds(10)).until(() -> app.status(mail) == JobState.SUCCEEDED);
    assertThat(reports.runsOf(report)).isEqualTo(1);
    assertThat(mails.runsOf(mail)).isEqualTo(1);
    assertThat(worker.workerId()).isNotBlank();

    worker.close();
    worker.close(); // idempotent
    assertThat(worker.health(Duration.ofSeconds(2)).claimLoop()).isFalse();
    try (Connection c = app.appPool.getConnection()) {
      assertThat(c.isValid(1)).as("the application's pool is still open").isTrue();
    }
  }

  @Test
  void runsOnAPoolPunctualOpensItself() throws Exception {
    RecordingHandler handler = new RecordingHandler("report.build");
    PunctualWorker worker =
        PunctualWorker.builder()
            .postgres(app.postgres)
            .redis(app.redis)
            .clock(Clock.systemUTC())
            .handler(handler)
            .build();
    PunctualWorker.Builder twice = app.worker().handler(new RecordingHandler("other"));
    try (worker;
        PunctualWorker a = twice.build();
        PunctualWorker b = twice.build()) {
      assertThat(a.workerId()).as("one builder, two workers: two ids").isNotEqualTo(b.workerId());
      worker.start();
      UUID id = submit("report.build");
      await().atMost(Duration.ofSeconds(10)).until(() -> app.status(id) == JobState.SUCCEEDED);
      assertThat(handler.runsOf(id)).isEqualTo(1);
    }
  }

  @Test
  void closeLetsARunningHandlerFinishAndHandsNothingToTheReaper() throws Exception {
    RecordingHandler slow = new RecordingHandler("slow", Duration.ofSeconds(2));
    PunctualWorker worker = app.worker().handler(slow).build();
    worker.start();
    UUID id = submit("slow");
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.started.contains(id));
    worker.close(); // within shutdownGrace (10 s here): waits for the handler
    assertThat(slow.runsOf(id)).isEqualTo(1);
    assertThat(app.status(id)).isEqualTo(JobState.SUCCEEDED);
    assertThat(worker.running()).isZero();
  }

  @Test
  void servesOnlyItsNamespaces() throws Exception {
    RecordingHandler handler = new RecordingHandler("report.build");
    PunctualJobs billing =
        PunctualJobs.builder()
            .dataSource(app.appPool)
            .redis(app.redis)
            .clock(Clock.systemUTC())
            .namespace("billing")
            .build();
    try (billing) {
      app.startWorker(app.worker().handler(handler).namespace("billing"));
      UUID elsewhere = submit("report.build"); // namespace default: not this worker's
      UUID id;
      try (Connection c = app.appPool.getConnection()) {
        c.setAutoCommit(false);
        Submission s = billing.submit(c, JobRequest.builder("report.build").build());
        c.commit();
        s.enqueue();
        id = s.id();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> app.status(id) == JobState.SUCCEEDED);
      assertThat(app.status(elsewhere)).isEqualTo(JobState.PENDING);
      assertThat(handler.runs).hasSize(1);
    }
  }

  @Test
  void refusesToBuildWithoutWhatItNeeds() {
    assertThatThrownBy(() -> PunctualWorker.builder().dataSource(app.appPool).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no handler");
    assertThatThrownBy(
            () ->
                PunctualWorker.builder()
                    .dataSource(app.appPool)
                    .redis(app.redis)
                    .handler(new RecordingHandler("x"))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("clock is required");
    assertThatThrownBy(() -> app.worker().handler(new RecordingHandler("x")).concurrency(0).build())
        .hasMessageContaining("worker.concurrency");
    assertThatThrownBy(
            () ->
                app.worker().handler(new RecordingHandler("x")).handler(new RecordingHandler("x")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
