package io.punctual.store;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.model.JobState;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.testing.StoreStack;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs written in a transaction the caller holds on its own connection ({@link
 * JobSubmissions#submitIn(Connection, List)}) commit and roll back with it; a store on a caller's
 * {@link DataSource} ({@link Database#on}) leaves it open when closed.
 */
class CallerTransactionIT {
  private StoreStack stack;

  @BeforeEach
  void setUp() {
    stack = new StoreStack();
  }

  @AfterEach
  void tearDown() {
    stack.close();
  }

  private DataSource callerPool() {
    return stack.database.dataSource();
  }

  @Test
  void jobsCommitAndRollBackWithTheCallersTransaction() throws Exception {
    List<Submitted> committed;
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      committed = stack.submissions.submitIn(c, List.of(aJob().build(), aJob().tags("t").build()));
      assertThat(stack.queries.findMany(List.of(committed.get(0).job().id())))
          .as("not visible before the commit")
          .isEmpty();
      c.commit();
    }
    assertThat(committed).allMatch(Submitted::created);
    assertThat(committed).allMatch(s -> s.job().status() == JobState.PENDING);
    assertThat(stack.queries.findMany(committed.stream().map(s -> s.job().id()).toList()))
        .hasSize(2);

    List<Submitted> rolledBack;
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      rolledBack = stack.submissions.submitIn(c, List.of(aJob().build()));
      c.rollback();
      // The connection is still the caller's, usable after the submit.
      assertThat(c.isClosed()).isFalse();
    }
    assertThat(stack.queries.findMany(List.of(rolledBack.get(0).job().id()))).isEmpty();
  }

  @Test
  void idempotencyKeysAreReservedInTheCallersTransaction() throws Exception {
    var job = aJob().idempotencyKey("key-1", "hash-1").build();
    Submitted first;
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      first = stack.submissions.submitIn(c, List.of(job)).get(0);
      c.rollback(); // the key goes with the job
    }
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      Submitted again = stack.submissions.submitIn(c, List.of(job)).get(0);
      assertThat(again.created()).isTrue();
      assertThat(again.job().id()).isNotEqualTo(first.job().id());
      c.commit();
      Submitted repeat = stack.submissions.submitIn(c, List.of(job)).get(0);
      assertThat(repeat.created()).isFalse();
      assertThat(repeat.job().id()).isEqualTo(again.job().id());
      assertThatThrownBy(
              () ->
                  stack.submissions.submitIn(
                      c, List.of(aJob().idempotencyKey("key-1", "another").build())))
          .isInstanceOf(IdempotencyConflictException.class);
      c.rollback();
    }
  }

  /**
   * A job due beyond the partitions made ahead, after the transaction wrote jobs: refused at once,
   * not a wait for the transaction's own lock; first in the transaction it is written.
   */
  @Test
  void aNewPartitionAfterJobsWrittenInTheTransactionIsRefusedNotAwaited() throws Exception {
    Instant farAhead = Instant.now().plus(Duration.ofDays(40));
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      stack.submissions.submitIn(c, List.of(aJob().build()));
      CompletableFuture<List<Submitted>> later =
          CompletableFuture.supplyAsync(
              () -> stack.submissions.submitIn(c, List.of(aJob().runAt(farAhead).build())));
      assertThatThrownBy(() -> later.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasMessageContaining("needs a new daily partition");
      c.rollback();
    }
    try (Connection c = callerPool().getConnection()) {
      c.setAutoCommit(false);
      Submitted first =
          stack.submissions.submitIn(c, List.of(aJob().runAt(farAhead).build())).get(0);
      Submitted next = stack.submissions.submitIn(c, List.of(aJob().build())).get(0);
      c.commit();
      assertThat(stack.queries.findMany(List.of(first.job().id(), next.job().id()))).hasSize(2);
    }
  }

  @Test
  void aConnectionInAutoCommitModeIsRefused() throws Exception {
    try (Connection c = callerPool().getConnection()) {
      assertThatThrownBy(() -> stack.submissions.submitIn(c, List.of(aJob().build())))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
  }

  @Test
  void aDatabaseOnTheCallersPoolLeavesItOpen() throws Exception {
    Database borrowed = Database.on(callerPool());
    int one = borrowed.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
    assertThat(one).isEqualTo(1);
    borrowed.close();
    try (Connection c = callerPool().getConnection()) {
      assertThat(c.isValid(1)).isTrue();
    }
  }
}
