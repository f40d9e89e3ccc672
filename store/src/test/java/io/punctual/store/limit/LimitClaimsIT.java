package io.punctual.store.limit;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.json.Json;
import io.punctual.model.Completion;
import io.punctual.model.Job;
import io.punctual.store.JobTransitions;
import io.punctual.store.limit.ClaimOutcome.Reason;
import io.punctual.store.testing.Completions;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The claim statement's limits against a real PostgreSQL: slots, fences, rate, pause. */
class LimitClaimsIT {
  private final TestClock clock =
      new TestClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobTransitions transitions = stack.transitions;
  private final LimitStore limits = new LimitStore(stack.database.jdbi(), clock);

  @AfterEach
  void close() {
    stack.close();
  }

  private List<UUID> submit(String type, String customer, int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(
          stack
              .submissions
              .submit(
                  List.of(
                      aJob()
                          .type(type)
                          .payload(Json.readTree("{\"customerId\":\"" + customer + "\"}"))
                          .runAt(clock.instant())
                          .build()))
              .get(0)
              .job()
              .id());
    }
    return ids;
  }

  private void limit(String type, Integer concurrency, Limit.Rate rate) {
    limits.put(
        new Limit(
            "default",
            "l-" + type,
            type,
            "customerId",
            concurrency,
            rate,
            true,
            false,
            null,
            null));
  }

  private long slotsHeld() {
    return stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM limit_slots").mapTo(Long.class).one());
  }

  private static Completion success(Job job, Instant at) {
    return success(job.id(), job.attempt(), at);
  }

  private static Completion success(UUID id, int attempt, Instant at) {
    return Completions.success(id, attempt, at);
  }

  @Test
  void atMostConcurrencyRunPerKeyAndTheRestAreRefusedWithoutASlot() {
    limit("sleep", 2, null);
    List<UUID> a = submit("sleep", "a", 5);
    List<UUID> b = submit("sleep", "b", 1);
    List<UUID> free = submit("other", "a", 3);
    List<UUID> all = new ArrayList<>(a);
    all.addAll(b);
    all.addAll(free);

    // A claim of the namespace's queue (as a worker makes it): a limit in the namespace sends the
    // whole batch through the judging statement, the unlimited type's jobs too.
    ClaimOutcome outcome = transitions.claimJudged("default", all, "w1", null);

    assertThat(outcome.claimed()).hasSize(2 + 1 + 3);
    assertThat(outcome.slots()).hasSize(3);
    assertThat(outcome.slots().values())
        .extracting(SlotKey::key)
        .containsExactlyInAnyOrder("a", "a", "b");
    assertThat(outcome.refused())
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.reason()).isEqualTo(Reason.NO_SLOT);
              assertThat(r.key()).isEqualTo("a");
              assertThat(r.concurrency()).isEqualTo(2);
            });
    assertThat(slotsHeld()).isEqualTo(3);
  }

  @Test
  void theEndOfAnAttemptFreesItsSlotAndAStaleEndFreesNothing() {
    limit("sleep", 1, null);
    List<UUID> ids = submit("sleep", "a", 2);
    Job first = transitions.claimJudged(List.of(ids.get(0)), "w1").claimed().get(0);
    assertThat(transitions.claimJudged(List.of(ids.get(1)), "w2").refused()).hasSize(1);

    // A stale completion (attempt 0, never current) frees nothing.
    Completion stale = success(first.id(), first.attempt() + 5, clock.instant());
    assertThat(transitions.finish(List.of(stale)).applied()).isEmpty();
    assertThat(slotsHeld()).isEqualTo(1);

    assertThat(transitions.finish(List.of(success(first, clock.instant()))).applied())
        .containsExactly(first.id());
    assertThat(slotsHeld()).isZero();
    assertThat(transitions.claimJudged(List.of(ids.get(1)), "w2").claimed()).hasSize(1);
    assertThat(slotsHeld()).isEqualTo(1);
  }

  @Test
  void aRescueAndACancelFreeTheSlotOfTheirAttempt() {
    limit("sleep", 1, null);
    List<UUID> ids = submit("sleep", "a", 2);
    Job first = transitions.claimJudged(List.of(ids.get(0)), "w1").claimed().get(0);
    clock.advance(Duration.ofMinutes(5));
    JobTransitions.Ended rescued =
        transitions.rescue(
            List.of(
                new JobTransitions.Rescue(
                    first.id(),
                    first.attempt(),
                    io.punctual.model.JobState.PENDING,
                    clock.instant(),
                    "lost")),
            clock.instant());
    assertThat(rescued.applied()).containsExactly(first.id());
    assertThat(slotsHeld()).isZero();
    // The late worker's result is refused and frees nothing of the next holder.
    Job second = transitions.claimJudged(List.of(ids.get(1)), "w2").claimed().get(0);
    assertThat(transitions.finish(List.of(success(first, clock.instant()))).applied()).isEmpty();
    assertThat(slotsHeld()).isEqualTo(1);
    assertThat(transitions.cancel("default", second.id()))
        .isInstanceOf(JobTransitions.CancelResult.Cancelled.class);
    assertThat(slotsHeld()).isZero();
  }

  @Test
  void aRateLimitStartsBurstNowAndReservesLaterStartsInOrder() {
    limit("call", null, new Limit.Rate(10, Duration.ofSeconds(1), 2));
    List<UUID> ids = submit("call", "a", 5);

    ClaimOutcome outcome = transitions.claimJudged(ids, "w1");

    assertThat(outcome.claimed())
        .extracting(Job::id)
        .containsExactlyInAnyOrder(ids.get(0), ids.get(1));
    Instant now = clock.instant();
    // Reserved starts one interval apart, in claim order (the order of the ids asked for).
    List<ClaimOutcome.Refusal> later = new ArrayList<>(outcome.refused());
    later.sort(java.util.Comparator.comparing(ClaimOutcome.Refusal::nextAt));
    assertThat(later)
        .extracting(r -> r.job().id())
        .containsExactly(ids.get(2), ids.get(3), ids.get(4));
    assertThat(later)
        .extracting(r -> Duration.between(now, r.nextAt()).toMillis())
        .containsExactly(100L, 200L, 300L);
    // Back at (or up to a second before) its reserved time, a job is claimed without another
    // token and starts at its reserved time exactly: started_at, which the worker waits for.
    clock.advance(Duration.ofMillis(100));
    ClaimOutcome again = transitions.claimJudged(ids.subList(2, 5), "w1");
    assertThat(again.refused()).isEmpty();
    assertThat(again.claimed())
        .extracting(j -> j.id(), j -> Duration.between(now, j.startedAt()).toMillis())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(ids.get(2), 100L),
            org.assertj.core.groups.Tuple.tuple(ids.get(3), 200L),
            org.assertj.core.groups.Tuple.tuple(ids.get(4), 300L));
  }

  @Test
  void aReservedStartMoreThanASecondAheadIsRefusedUntilThen() {
    limit("call", null, new Limit.Rate(1, Duration.ofSeconds(1), 1));
    List<UUID> ids = submit("call", "a", 3);
    Instant now = clock.instant();
    ClaimOutcome outcome = transitions.claimJudged(ids, "w1");
    assertThat(outcome.claimed()).extracting(Job::id).containsExactly(ids.get(0));
    assertThat(outcome.refused())
        .extracting(r -> Duration.between(now, r.nextAt()).toMillis())
        .containsExactlyInAnyOrder(1_000L, 2_000L);

    // At once again: the start a second away is claimed for then, the one two seconds away waits.
    ClaimOutcome again = transitions.claimJudged(ids.subList(1, 3), "w1");
    assertThat(again.claimed())
        .extracting(j -> j.id(), j -> Duration.between(now, j.startedAt()).toMillis())
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ids.get(1), 1_000L));
    assertThat(again.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(Reason.LATER);
              assertThat(r.job().id()).isEqualTo(ids.get(2));
              assertThat(Duration.between(now, r.nextAt()).toMillis()).isEqualTo(2_000L);
            });
    // Missed by more than an interval (a late worker): void, the job asks for a token again.
    clock.advance(Duration.ofMillis(3_500));
    ClaimOutcome late = transitions.claimJudged(ids.subList(2, 3), "w1");
    assertThat(late.claimed())
        .extracting(j -> Duration.between(now, j.startedAt()).toMillis())
        .containsExactly(3_500L);
  }

  @Test
  void aLimitKeyedByTheJobsOwnConcurrencyKey() {
    limits.put(
        new Limit(
            "default", "own", "own", Limit.CONCURRENCY_KEY, 1, null, false, false, null, null));
    List<UUID> ids = new ArrayList<>();
    for (String key : List.of("x", "x", "y")) {
      ids.add(
          stack
              .submissions
              .submit(
                  List.of(
                      aJob().type("own").runAt(clock.instant()).build().withConcurrencyKey(key)))
              .get(0)
              .job()
              .id());
    }
    ClaimOutcome outcome = transitions.claimJudged(ids, "w1");
    assertThat(outcome.slots().values())
        .extracting(SlotKey::key)
        .containsExactlyInAnyOrder("x", "y");
    assertThat(outcome.refused())
        .singleElement()
        .satisfies(r -> assertThat(r.key()).isEqualTo("x"));
  }

  @Test
  void aPausedTypeStartsNothingUntilResumed() {
    limits.pause("default", "other");
    List<UUID> ids = submit("other", "a", 2);
    ClaimOutcome paused = transitions.claimJudged("default", ids, "w1", null);
    assertThat(paused.claimed()).isEmpty();
    assertThat(paused.refused())
        .extracting(ClaimOutcome.Refusal::reason)
        .containsOnly(Reason.PAUSED);
    assertThat(limits.resume("default", "other")).isTrue();
    // nothing paused or limited in the namespace now: the plain claim
    assertThat(transitions.claimJudged("default", ids, "w1", null).claimed()).hasSize(2);
  }

  @Test
  void aSlowedKeyStartsNothingUntilThen() {
    limit("sleep", 5, null);
    List<UUID> ids = submit("sleep", "a", 1);
    assertThat(limits.slowKeyOf(ids.get(0), "default", "sleep", Duration.ofSeconds(30))).isTrue();
    ClaimOutcome outcome = transitions.claimJudged(ids, "w1");
    assertThat(outcome.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(Reason.LATER);
              assertThat(r.nextAt()).isEqualTo(clock.instant().plusSeconds(30));
            });
    clock.advance(Duration.ofSeconds(31));
    assertThat(transitions.claimJudged(ids, "w1").claimed()).hasSize(1);
  }
}
