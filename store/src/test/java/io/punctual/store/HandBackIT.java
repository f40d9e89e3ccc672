package io.punctual.store;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.json.Json;
import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.store.limit.Limit;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.namespace.Namespaces;
import io.punctual.store.namespace.Quota;
import io.punctual.store.testing.Completions;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Transition HAND_BACK (handBack.sql) against a real PostgreSQL: a worker gives back an attempt it
 * holds; the job is PENDING and due at once, the attempt is recorded HANDED_BACK, its slots are
 * free, and the job keeps the attempts it had left. Guarded by status, attempt and worker.
 */
class HandBackIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;

  @AfterEach
  void close() {
    stack.close();
  }

  private Job running(int maxAttempts, String worker) {
    Job job =
        stack
            .submissions
            .submit(List.of(aJob().maxAttempts(maxAttempts).runAt(clock.instant()).build()))
            .get(0)
            .job();
    return transitions.claim(List.of(job.id()), worker).get(0);
  }

  private Job stored(UUID id) {
    return queries.find("default", id).orElseThrow();
  }

  private static HandBack handBack(Job job, int attempt) {
    return new HandBack(job.id(), attempt, 1_500L, "handed back: worker stopping");
  }

  @Test
  void aHandedBackAttemptIsPendingAtOnceRecordedAndDoesNotUseUpAnAttempt() {
    Job job = running(1, "w1");
    assertThat(job.attempt()).isEqualTo(1);
    assertThat(job.hasAttemptsLeft()).isFalse();
    clock.advance(java.time.Duration.ofSeconds(2));

    List<HandBack.Moved> moved = transitions.handBack(List.of(handBack(job, 1)), "w1");

    assertThat(moved)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.entry().id()).isEqualTo(job.id());
              assertThat(m.entry().runAt()).isEqualTo(clock.instant());
              assertThat(m.entry().namespace()).isEqualTo("default");
              assertThat(m.attempt()).isEqualTo(1);
            });
    Job after = stored(job.id());
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.runAt()).isEqualTo(clock.instant());
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(after.maxAttempts()).isEqualTo(2);
    assertThat(after.hasAttemptsLeft()).isTrue();
    assertThat(after.heartbeatAt()).isNull();
    Execution handed = queries.executions("default", job.id()).get(0);
    assertThat(handed.status()).isEqualTo(ExecutionStatus.HANDED_BACK);
    assertThat(handed.attempt()).isEqualTo(1);
    assertThat(handed.workerId()).isEqualTo("w1");
    assertThat(handed.durationMs()).isEqualTo(1_500L);
    assertThat(handed.error()).isEqualTo("handed back: worker stopping");

    // The next claim runs it: the attempt it had is still there, numbered after the one handed
    // back.
    Job again = transitions.claim(List.of(job.id()), "w2").get(0);
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(again.hasAttemptsLeft()).isFalse();
    assertThat(transitions.finish(List.of(success(job.id(), 2))).applied())
        .containsExactly(job.id());
    assertThat(queries.executions("default", job.id()))
        .extracting(e -> e.attempt() + " " + e.status() + " " + e.workerId())
        .containsExactlyInAnyOrder("1 HANDED_BACK w1", "2 SUCCEEDED w2");
  }

  @Test
  void onlyTheWorkerHoldingThatAttemptOfARunningJobHandsItBackAndOnlyOnce() {
    Job job = running(3, "w1");

    assertThat(transitions.handBack(List.of(handBack(job, 2)), "w1")).as("other attempt").isEmpty();
    assertThat(transitions.handBack(List.of(handBack(job, 1)), "w2")).as("other worker").isEmpty();
    assertThat(stored(job.id()).status()).isEqualTo(JobState.RUNNING);

    assertThat(transitions.handBack(List.of(handBack(job, 1)), "w1")).hasSize(1);
    assertThat(transitions.handBack(List.of(handBack(job, 1)), "w1")).as("again").isEmpty();
    Job after = stored(job.id());
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.maxAttempts()).as("raised once").isEqualTo(4);

    // A late result of the handed-back attempt is refused and the record stays HANDED_BACK.
    assertThat(transitions.finish(List.of(success(job.id(), 1)), "w1").applied()).isEmpty();
    assertThat(stored(job.id()).status()).isEqualTo(JobState.PENDING);
    assertThat(queries.executions("default", job.id()))
        .singleElement()
        .extracting(Execution::status)
        .isEqualTo(ExecutionStatus.HANDED_BACK);
  }

  @Test
  void aFinishedJobIsNotHandedBack() {
    Job job = running(3, "w1");
    transitions.finish(List.of(success(job.id(), 1)), "w1");

    assertThat(transitions.handBack(List.of(handBack(job, 1)), "w1")).isEmpty();
    assertThat(stored(job.id()).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(stored(job.id()).maxAttempts()).isEqualTo(3);
  }

  @Test
  void aHandBackGivesBackTheLimitSlotAndTheNamespaceSlotOfItsAttempt() {
    new Namespaces(stack.database.jdbi(), clock)
        .create("capped", new Quota(null, null, null, null, 1, null));
    new LimitStore(stack.database.jdbi(), clock)
        .put(new Limit("capped", "one", "work", "customerId", 1, null, true, false, null, null));
    List<UUID> ids =
        stack
            .submissions
            .submit(
                List.of(
                    aJob()
                        .namespace("capped")
                        .type("work")
                        .payload(Json.readTree("{\"customerId\":\"a\"}"))
                        .runAt(clock.instant())
                        .build(),
                    aJob()
                        .namespace("capped")
                        .type("work")
                        .payload(Json.readTree("{\"customerId\":\"a\"}"))
                        .runAt(clock.instant())
                        .build()))
            .stream()
            .map(s -> s.job().id())
            .toList();
    Job first = transitions.claimJudged(ids, "w1", "capped").claimed().get(0);
    assertThat(count("limit_slots")).isEqualTo(1);
    assertThat(count("namespace_slots")).isEqualTo(1);

    assertThat(transitions.handBack(List.of(handBack(first, 1)), "w1")).hasSize(1);

    assertThat(count("limit_slots")).isZero();
    assertThat(count("namespace_slots")).isZero();
    UUID other = ids.get(0).equals(first.id()) ? ids.get(1) : ids.get(0);
    assertThat(transitions.claimJudged(List.of(other), "w2", "capped").claimed())
        .as("the freed slots take the other job")
        .hasSize(1);
  }

  @Test
  void theReadBackTellsAWriteThatCommittedFromOneThatDidNot() {
    AttemptReadBack readBack = new AttemptReadBack(stack.database.jdbi());
    Job handed = running(3, "w1");
    Job finished = running(3, "w1");
    Job untouched = running(3, "w1");
    transitions.handBack(List.of(handBack(handed, 1)), "w1");
    transitions.finish(List.of(success(finished.id(), 1)), "w1");

    List<AttemptReadBack.Recorded> recorded =
        readBack.recorded(
            List.of(
                new Attempt(handed.id(), 1),
                new Attempt(finished.id(), 1),
                new Attempt(untouched.id(), 1)));

    assertThat(recorded).hasSize(3);
    for (AttemptReadBack.Recorded r : recorded) {
      boolean handBackCommitted = r.wrote("w1", ExecutionStatus.HANDED_BACK, JobState.PENDING);
      boolean successCommitted = r.wrote("w1", ExecutionStatus.SUCCEEDED, JobState.SUCCEEDED);
      assertThat(handBackCommitted).as("hand-back " + r).isEqualTo(r.jobId().equals(handed.id()));
      assertThat(successCommitted).as("success " + r).isEqualTo(r.jobId().equals(finished.id()));
      assertThat(r.wrote("w2", ExecutionStatus.SUCCEEDED, JobState.SUCCEEDED)).isFalse();
    }
  }

  private long count(String table) {
    return stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
  }

  private Completion success(UUID id, int attempt) {
    return Completions.success(id, attempt, clock.instant());
  }
}
