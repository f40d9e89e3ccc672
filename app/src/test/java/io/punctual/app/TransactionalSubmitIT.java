package io.punctual.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import io.punctual.app.request.InvalidJobRequestException;
import io.punctual.client.Dependency;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.model.JobState;
import io.punctual.store.IdempotencyConflictException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs written in the application's own JDBC transaction, run by an embedded worker: a commit gives
 * exactly one job that runs, a rollback none; the application's own rows and the job's commit
 * together.
 */
class TransactionalSubmitIT {
  private EmbeddedHarness app;
  private RecordingHandler handler;

  @BeforeEach
  void setUp() throws Exception {
    app = new EmbeddedHarness();
    handler = new RecordingHandler("invoice.send");
    app.startWorker(app.worker().handler(handler).concurrency(4));
    try (Connection c = app.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement("CREATE TABLE app_orders (id bigint PRIMARY KEY, total int)")) {
      s.execute();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    app.close();
  }

  private static void insertOrder(Connection c, long id) throws Exception {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO app_orders VALUES (?, 100)")) {
      s.setLong(1, id);
      s.executeUpdate();
    }
  }

  private long orders() throws Exception {
    try (Connection c = app.appPool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT count(*) FROM app_orders");
        var rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aCommittedJobRunsExactlyOnceOnTheEmbeddedWorker() throws Exception {
    Submission submission;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, 1);
      submission =
          app.jobs.submit(
              c, JobRequest.builder("invoice.send").payload(Map.of("order", 1)).build());
      // Written in the transaction only: nothing visible outside it, nothing in Redis.
      assertThat(app.jobCount()).isZero();
      c.commit();
    }
    assertThat(submission.created(0)).isTrue();
    assertThat(submission.enqueue()).isTrue();
    UUID id = submission.id();
    await().atMost(Duration.ofSeconds(10)).until(() -> app.status(id) == JobState.SUCCEEDED);
    Thread.sleep(500); // a second run, if there were one, would have started by now
    assertThat(handler.runsOf(id)).isEqualTo(1);
    assertThat(handler.runs).hasSize(1);
    assertThat(app.jobCount()).isEqualTo(1);
    assertThat(orders()).isEqualTo(1);
  }

  @Test
  void aRolledBackTransactionLeavesNoJob() throws Exception {
    UUID id;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, 2);
      id = app.jobs.submit(c, JobRequest.builder("invoice.send").build()).id();
      c.rollback();
    }
    Thread.sleep(1_500); // time for a worker to claim it, were it anywhere
    assertThat(app.jobCount()).isZero();
    assertThat(app.status(id)).isNull();
    assertThat(app.queued(id)).isZero();
    assertThat(handler.runs).isEmpty();
    assertThat(orders()).isZero();
  }

  @Test
  void aBatchIsWrittenWholeAndAnInvalidJobWritesNothing() throws Exception {
    Submission batch;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      batch =
          app.jobs.submitAll(
              c,
              List.of(
                  JobRequest.builder("invoice.send").build(),
                  JobRequest.builder("invoice.send").delay(Duration.ofMillis(200)).build(),
                  JobRequest.builder("invoice.send").tags("a", "b").build()));
      c.commit();
    }
    batch.enqueue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> handler.runs.size() == 3 && app.jobCount() == 3);
    assertThat(handler.runs)
        .extracting(RecordingHandler.Run::jobId)
        .containsExactlyInAnyOrderElementsOf(batch.ids());

    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(
              () ->
                  app.jobs.submitAll(
                      c,
                      List.of(
                          JobRequest.builder("invoice.send").build(),
                          JobRequest.builder("invoice.send").maxAttempts(0).build())))
          .isInstanceOf(InvalidJobRequestException.class)
          .hasMessageStartingWith("jobs[1].maxAttempts:");
      c.commit();
    }
    assertThat(app.jobCount()).isEqualTo(3);
  }

  @Test
  void idempotencyKeysWorkAsOverRest() throws Exception {
    JobRequest request =
        JobRequest.builder("invoice.send")
            .payload(Map.of("order", 7))
            .idempotencyKey("order-7")
            .build();
    Submission first;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      first = app.jobs.submit(c, request);
      c.commit();
    }
    first.enqueue();
    Submission repeat;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      repeat = app.jobs.submit(c, request);
      c.commit();
    }
    assertThat(repeat.id()).isEqualTo(first.id());
    assertThat(repeat.created(0)).isFalse();
    assertThat(repeat.enqueue()).isTrue();

    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      JobRequest other =
          JobRequest.builder("invoice.send")
              .payload(Map.of("order", 8))
              .idempotencyKey("order-7")
              .build();
      assertThatThrownBy(() -> app.jobs.submit(c, other))
          .isInstanceOf(IdempotencyConflictException.class);
      c.rollback();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runsOf(first.id()) == 1);
    Thread.sleep(500);
    assertThat(handler.runs).hasSize(1);
    assertThat(app.jobCount()).isEqualTo(1);
  }

  @Test
  void aJobCarriesTheTraceparentItWasSubmittedWith() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Submission traced;
    Submission untraced;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      traced = app.jobs.submit(c, JobRequest.builder("invoice.send").build(), traceparent);
      untraced = app.jobs.submit(c, JobRequest.builder("invoice.send").build(), "not-a-trace");
      c.commit();
    }
    assertThat(traced.jobs().get(0).traceparent()).isEqualTo(traceparent);
    assertThat(untraced.jobs().get(0).traceparent()).as("invalid: dropped").isNull();
    try (Connection c = app.appPool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT traceparent FROM jobs WHERE id = ?")) {
      s.setObject(1, traced.id());
      try (var rs = s.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo(traceparent);
      }
    }
  }

  @Test
  void withoutATraceparentTheCurrentSpansIsStored() throws Exception {
    SpanContext current =
        SpanContext.create(
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "00f067aa0ba902b7",
            TraceFlags.getSampled(),
            TraceState.getDefault());
    Submission inSpan;
    Submission outside;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      try (Scope scope = Span.wrap(current).makeCurrent()) {
        inSpan =
            app.jobs.submitAll(
                c,
                List.of(
                    JobRequest.builder("invoice.send").build(),
                    JobRequest.builder("invoice.send").build()));
      }
      outside = app.jobs.submit(c, JobRequest.builder("invoice.send").build());
      c.commit();
    }
    assertThat(inSpan.jobs())
        .extracting(io.punctual.model.Job::traceparent)
        .containsOnly("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(outside.jobs().get(0).traceparent()).as("no current span").isNull();
  }

  @Test
  void aConnectionOutsideATransactionIsRefused() throws Exception {
    try (Connection c = app.appPool.getConnection()) {
      assertThat(c.getAutoCommit()).isTrue();
      assertThatThrownBy(() -> app.jobs.submit(c, JobRequest.builder("invoice.send").build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
    assertThat(app.jobCount()).isZero();
  }

  private RecordingHandler.Run runOf(UUID id) {
    return handler.runs.stream().filter(r -> r.jobId().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void aWorkflowIsWrittenInTheTransactionAndItsStepsRunInOrder() throws Exception {
    WorkflowRequest workflow =
        WorkflowRequest.of(
            JobRequest.builder("invoice.send").ref("render").build(),
            JobRequest.builder("invoice.send")
                .ref("send")
                .dependsOn(Dependency.onStep("render"))
                .build(),
            JobRequest.builder("invoice.send").ref("archive").parent("send", null).build());
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      app.jobs.submitWorkflow(c, workflow);
      c.rollback();
    }
    assertThat(app.jobCount()).isZero();

    Submission submission;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, 7);
      submission = app.jobs.submitWorkflow(c, workflow.withIdempotencyKey("order-7"));
      assertThat(app.jobCount()).isZero(); // in the transaction only
      c.commit();
    }
    assertThat(submission.workflowId()).isPresent();
    assertThat(submission.jobs())
        .extracting(io.punctual.model.Job::status)
        .containsExactly(JobState.PENDING, JobState.BLOCKED, JobState.BLOCKED);
    submission.enqueue();
    List<UUID> steps = submission.ids();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> app.status(steps.get(2)) == JobState.SUCCEEDED);
    assertThat(handler.runs).hasSize(3);
    assertThat(runOf(steps.get(0)).endedAt()).isBeforeOrEqualTo(runOf(steps.get(1)).startedAt());
    assertThat(runOf(steps.get(1)).endedAt()).isBeforeOrEqualTo(runOf(steps.get(2)).startedAt());

    // The same workflow under the same key, again in a transaction: the stored one, nothing new.
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      Submission again = app.jobs.submitWorkflow(c, workflow.withIdempotencyKey("order-7"));
      c.commit();
      assertThat(again.workflowId()).isEqualTo(submission.workflowId());
      assertThat(again.created(0)).isFalse();
      assertThat(again.enqueue()).isTrue();
    }
    assertThat(app.jobCount()).isEqualTo(3);
    assertThat(orders()).isEqualTo(1);
  }

  @Test
  void aJobWaitsForAStoredJobAndOneNotInTheNamespaceIsNamed() throws Exception {
    Submission firstSubmission;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      firstSubmission =
          app.jobs.submit(
              c, JobRequest.builder("invoice.send").delay(Duration.ofMillis(500)).build());
      c.commit();
    }
    firstSubmission.enqueue();
    UUID first = firstSubmission.id();
    Submission waiting;
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      waiting =
          app.jobs.submit(
              c,
              JobRequest.builder("invoice.send")
                  .dependsOn(Dependency.on(first.toString()))
                  .build());
      c.commit();
    }
    assertThat(waiting.jobs().get(0).status()).isEqualTo(JobState.BLOCKED);
    waiting.enqueue(); // nothing to queue yet: it waits for the first
    UUID second = waiting.id();
    await().atMost(Duration.ofSeconds(10)).until(() -> app.status(second) == JobState.SUCCEEDED);
    assertThat(runOf(first).endedAt()).isBeforeOrEqualTo(runOf(second).startedAt());

    UUID unknown = io.punctual.model.JobId.forScheduledTime(java.time.Instant.now());
    try (Connection c = app.appPool.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(
              () ->
                  app.jobs.submitAll(
                      c,
                      List.of(
                          JobRequest.builder("invoice.send").build(),
                          JobRequest.builder("invoice.send")
                              .dependsOn(
                                  Dependency.on(first.toString()),
                                  Dependency.on(unknown.toString()))
                              .build())))
          .isInstanceOf(InvalidJobRequestException.class)
          .hasMessage("jobs[1].dependsOn[1]: no job " + unknown + " in this namespace to wait for");
      c.rollback();
    }
    assertThat(app.jobCount()).isEqualTo(2);
  }
}
