package io.punctual.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.punctual.app.request.InvalidJobRequestException;
import io.punctual.client.JobRequest;
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
  void aConnectionOutsideATransactionIsRefused() throws Exception {
    try (Connection c = app.appPool.getConnection()) {
      assertThat(c.getAutoCommit()).isTrue();
      assertThatThrownBy(() -> app.jobs.submit(c, JobRequest.builder("invoice.send").build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
    assertThat(app.jobCount()).isZero();
  }
}
