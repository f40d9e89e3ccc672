package io.punctual.store;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.JobTransitions.CancelResult;
import io.punctual.store.JobTransitions.UnwrittenClaim;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.Limit;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.testing.Completions;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim read but not written (peekPlain.sql), against a real PostgreSQL: the row stays PENDING
 * while the worker holds the next attempt; the attempt's end writes claim and end together (the
 * *_UNWRITTEN transitions), or writeClaims.sql writes the claim later; each guarded by the attempt
 * the claim read, so a cancel, a second finish or a late write is refused.
 */
class UnwrittenClaimIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;

  @AfterEach
  void close() {
    stack.close();
  }

  private Job pending(int maxAttempts) {
    return stack
        .submissions
        .submit(List.of(aJob().maxAttempts(maxAttempts).runAt(clock.instant()).build()))
        .get(0)
        .job();
  }

  private ClaimOutcome read(Job job, String worker) {
    return transitions.claimJudged("default", List.of(job.id()), worker, null, true);
  }

  private Job stored(UUID id) {
    return queries.find("default", id).orElseThrow();
  }

  @Test
  void aReadClaimLeavesTheRowPendingAndItsEndWritesClaimAndEndInOneStep() {
    Job job = pending(3);

    ClaimOutcome outcome = read(job, "w1");

    assertThat(outcome.unwritten()).isTrue();
    Job held = outcome.claimed().get(0);
    assertThat(held.status()).isEqualTo(JobState.RUNNING);
    assertThat(held.attempt()).isEqualTo(1);
    assertThat(held.workerId()).isEqualTo("w1");
    assertThat(stored(job.id()).status()).isEqualTo(JobState.PENDING);
    assertThat(stored(job.id()).attempt()).isZero();

    clock.advance(Duration.ofMillis(40));
    JobTransitions.Ended ended =
        transitions.finish(List.of(success(job.id(), 1)), "w1", Set.of(job.id()));

    assertThat(ended.applied()).containsExactly(job.id());
    Job after = stored(job.id());
    assertThat(after.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(after.workerId()).isEqualTo("w1");
    assertThat(after.startedAt()).isEqualTo(clock.instant().minusMillis(5));
    Execution execution = queries.executions("default", job.id()).get(0);
    assertThat(execution.attempt()).isEqualTo(1);
    assertThat(execution.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
    assertThat(execution.workerId()).isEqualTo("w1");

    // The same end again (a batch written twice) is refused: the row is no longer PENDING.
    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1", Set.of(job.id())).applied())
        .isEmpty();
  }

  @Test
  void aRetryOfAnUnwrittenAttemptUsesItUpAndTheNextClaimTakesTheOneAfter() {
    Job job = pending(3);
    read(job, "w1");

    assertThat(transitions.finish(List.of(retry(job.id(), 1)), "w1", Set.of(job.id())).applied())
        .containsExactly(job.id());

    Job after = stored(job.id());
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(after.lastError()).isEqualTo("boom");
    clock.advance(Duration.ofSeconds(10));
    assertThat(read(job, "w2").claimed().get(0).attempt()).isEqualTo(2);
  }

  @Test
  void aClaimWrittenLateIsRunningAndAnEndAfterItIsAnOrdinaryOne() {
    Job job = pending(3);
    read(job, "w1");
    Instant started = clock.instant();
    clock.advance(Duration.ofMillis(300));

    UnwrittenClaim claim = new UnwrittenClaim(job.id(), 1, started);
    assertThat(transitions.writeClaims(List.of(claim), "w1")).containsExactly(job.id());
    Job running = stored(job.id());
    assertThat(running.status()).isEqualTo(JobState.RUNNING);
    assertThat(running.attempt()).isEqualTo(1);
    assertThat(running.workerId()).isEqualTo("w1");
    assertThat(running.startedAt()).isEqualTo(started);
    assertThat(running.heartbeatAt()).isEqualTo(clock.instant());

    // Written again (its first commit's outcome was unknown): still this worker's, so written.
    assertThat(transitions.writeClaims(List.of(claim), "w1")).containsExactly(job.id());
    assertThat(transitions.writeClaims(List.of(claim), "w2")).as("another worker").isEmpty();

    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1").applied())
        .containsExactly(job.id());
    assertThat(stored(job.id()).status()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void aCancelOfTheRowRefusesBothTheLateWriteAndTheEnd() {
    Job job = pending(3);
    read(job, "w1");

    assertThat(transitions.cancel("default", job.id())).isInstanceOf(CancelResult.Cancelled.class);

    UnwrittenClaim claim = new UnwrittenClaim(job.id(), 1, clock.instant());
    assertThat(transitions.writeClaims(List.of(claim), "w1")).isEmpty();
    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1", Set.of(job.id())).applied())
        .isEmpty();
    assertThat(stored(job.id()).status()).isEqualTo(JobState.CANCELLED);
    // The attempt that ran is still on record.
    assertThat(queries.executions("default", job.id()))
        .extracting(e -> e.attempt() + " " + e.status())
        .containsExactly("1 SUCCEEDED");
  }

  @Test
  void anEndNamedUnwrittenIsRefusedForAnAttemptWrittenByAnotherClaim() {
    Job job = pending(3);
    read(job, "w1");
    // The attempt went to another worker (w1's lease lost): w2's claim is written first.
    Job w2 = transitions.claim(List.of(job.id()), "w2").get(0);
    assertThat(w2.attempt()).isEqualTo(1);

    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1", Set.of(job.id())).applied())
        .as("w1's end, through a claim it never wrote")
        .isEmpty();
    assertThat(
            transitions.writeClaims(
                List.of(new UnwrittenClaim(job.id(), 1, clock.instant())), "w1"))
        .isEmpty();
    assertThat(stored(job.id()).workerId()).isEqualTo("w2");
    assertThat(stored(job.id()).status()).isEqualTo(JobState.RUNNING);
    assertThat(rows(job.id()))
        .as("attempt 1's row is left to w2, which runs it")
        .containsExactly("1 RUNNING w2");

    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w2").applied())
        .containsExactly(job.id());
    assertThat(rows(job.id())).containsExactly("1 SUCCEEDED w2");
  }

  /**
   * Two workers holding one attempt unwritten (the first one's lease lapsed while it was paused,
   * before a death watch saw it): the one that writes first owns the attempt, and the job row and
   * the attempt's row agree on it, whichever ends first.
   */
  @Test
  void ofTwoWorkersHoldingOneAttemptUnwrittenTheFirstWriteOwnsItAndItsRow() {
    Job job = pending(3);
    read(job, "w1");
    assertThat(read(job, "w2").claimed()).as("the row says nothing of w1's claim").hasSize(1);
    UnwrittenClaim late = new UnwrittenClaim(job.id(), 1, clock.instant());
    assertThat(transitions.writeClaims(List.of(late), "w1")).containsExactly(job.id());

    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w2", Set.of(job.id())).applied())
        .as("w2's end, through the claim w1 wrote first")
        .isEmpty();
    assertThat(rows(job.id())).containsExactly("1 RUNNING w1");
    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1").applied())
        .containsExactly(job.id());

    Job after = stored(job.id());
    assertThat(after.status() + " " + after.attempt() + " " + after.workerId())
        .isEqualTo("SUCCEEDED 1 w1");
    assertThat(rows(job.id())).containsExactly("1 SUCCEEDED w1");
  }

  /**
   * An unwritten attempt stopped before its claim was written (its end refused, the row still
   * PENDING with the attempt before) leaves no row for its number: the next claim takes that
   * number, and its end's row is the one recorded.
   */
  @Test
  void anUnwrittenAttemptStoppedLeavesItsNumberAndItsRowToTheNextClaim() {
    Job job = pending(3);
    read(job, "w1");
    Completion stopped = cancelled(job.id(), 1, "stopped");

    assertThat(transitions.finish(List.of(stopped), "w1").applied()).isEmpty();
    assertThat(transitions.finish(List.of(stopped), "w1", Set.of(job.id())).applied()).isEmpty();
    assertThat(queries.executions("default", job.id())).isEmpty();

    clock.advance(Duration.ofSeconds(1));
    assertThat(read(job, "w1").claimed().get(0).attempt()).isEqualTo(1);
    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1", Set.of(job.id())).applied())
        .containsExactly(job.id());
    assertThat(rows(job.id())).containsExactly("1 SUCCEEDED w1");
  }

  @Test
  void aNamespaceWithALimitIsJudgedAndWrittenAsBefore() {
    new LimitStore(stack.database.jdbi(), clock)
        .put(
            new Limit("default", "one", "limited", "customerId", 2, null, true, false, null, null));
    Job job =
        stack
            .submissions
            .submit(List.of(aJob().type("limited").runAt(clock.instant()).build()))
            .get(0)
            .job();

    ClaimOutcome outcome = read(job, "w1");

    assertThat(outcome.unwritten()).isFalse();
    assertThat(outcome.claimed()).hasSize(1);
    assertThat(stored(job.id()).status()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void oneBatchEndsAttemptsOfEveryGroupTogetherEachByItsOwnGuard() {
    List<Job> written = List.of(pending(3), pending(3), pending(3));
    List<Job> unwritten = List.of(pending(3), pending(3), pending(3));
    Job cancelled = pending(3);
    for (Job j : written) {
      assertThat(transitions.claimJudged("default", List.of(j.id()), "w1", null, false).unwritten())
          .isFalse();
    }
    unwritten.forEach(j -> read(j, "w1"));
    transitions.claim(List.of(cancelled.id()), "w1");
    assertThat(transitions.cancel("default", cancelled.id()))
        .isInstanceOf(CancelResult.Cancelled.class);
    clock.advance(Duration.ofMillis(40));

    List<Completion> batch =
        List.of(
            success(written.get(0).id(), 1),
            retry(written.get(1).id(), 1),
            failure(written.get(2).id(), 1),
            success(unwritten.get(0).id(), 1),
            retry(unwritten.get(1).id(), 1),
            failure(unwritten.get(2).id(), 1),
            cancelled(cancelled.id(), 1, "cancelled"));
    Set<UUID> unwrittenIds =
        Set.of(unwritten.get(0).id(), unwritten.get(1).id(), unwritten.get(2).id());

    JobTransitions.Ended ended = transitions.finish(batch, "w1", unwrittenIds);

    assertThat(ended.applied())
        .containsExactlyInAnyOrderElementsOf(
            List.of(
                written.get(0).id(),
                written.get(1).id(),
                written.get(2).id(),
                unwritten.get(0).id(),
                unwritten.get(1).id(),
                unwritten.get(2).id()));
    for (List<Job> jobs : List.of(written, unwritten)) {
      assertThat(jobs)
          .extracting(j -> stored(j.id()).status() + " " + stored(j.id()).attempt())
          .containsExactly("SUCCEEDED 1", "PENDING 1", "FAILED 1");
    }
    assertThat(stored(cancelled.id()).status()).isEqualTo(JobState.CANCELLED);
    assertThat(queries.executions("default", cancelled.id()))
        .extracting(e -> e.attempt() + " " + e.status())
        .containsExactly("1 CANCELLED");
    assertThat(rows(unwritten.get(2).id())).containsExactly("1 FAILED w1");

    // Each group again, alone: every guard refuses a second end.
    for (Completion c : batch) {
      Set<UUID> through = unwrittenIds.contains(c.jobId()) ? Set.of(c.jobId()) : Set.of();
      assertThat(transitions.finish(List.of(c), "w1", through).applied())
          .as(c.toString())
          .isEmpty();
    }
  }

  private Completion success(UUID id, int attempt) {
    return Completions.success(id, attempt, clock.instant());
  }

  /** Each recorded attempt of the job as "attempt status worker". */
  private List<String> rows(UUID id) {
    return queries.executions("default", id).stream()
        .map(e -> e.attempt() + " " + e.status() + " " + e.workerId())
        .toList();
  }

  /** An attempt stopped by its worker (a cancel reached it, or it was no longer current). */
  private Completion cancelled(UUID id, int attempt, String why) {
    return new Completion(
        id,
        attempt,
        JobState.CANCELLED,
        null,
        ExecutionStatus.CANCELLED,
        clock.instant(),
        5,
        why,
        null,
        null,
        List.of());
  }

  private Completion failure(UUID id, int attempt) {
    return new Completion(
        id,
        attempt,
        JobState.FAILED,
        null,
        ExecutionStatus.FAILED,
        clock.instant(),
        5,
        "boom",
        "trace",
        null,
        List.of());
  }

  private Completion retry(UUID id, int attempt) {
    return Completions.retry(id, attempt, clock.instant(), clock.instant().plusSeconds(10));
  }
}
