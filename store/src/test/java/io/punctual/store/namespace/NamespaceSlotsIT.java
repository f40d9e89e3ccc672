package io.punctual.store.namespace;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.json.Json;
import io.punctual.model.Completion;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.JobTransitions;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.ClaimOutcome.Reason;
import io.punctual.store.limit.Limit;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.testing.Completions;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A namespace's running cap ({@code maxRunning}, V27) in the claim statement against a real
 * PostgreSQL: at most that many attempts of the namespace run at once, fenced by attempt, given
 * back by every statement that ends an attempt, and never a rate token spent while it is full.
 */
class NamespaceSlotsIT {
  private static final String CAPPED = "capped";

  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobTransitions transitions = stack.transitions;
  private final Namespaces namespaces = new Namespaces(stack.database.jdbi(), clock);
  private final LimitStore limits = new LimitStore(stack.database.jdbi(), clock);

  @AfterEach
  void close() {
    stack.close();
  }

  private void cap(int maxRunning) {
    Quota quota = new Quota(null, null, null, null, maxRunning, null);
    if (namespaces.find(CAPPED).isPresent()) {
      namespaces.setQuota(CAPPED, quota);
    } else {
      namespaces.create(CAPPED, quota);
    }
  }

  private List<UUID> submit(String namespace, String type, String customer, int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(
          stack
              .submissions
              .submit(
                  List.of(
                      aJob()
                          .namespace(namespace)
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

  private long count(String sql) {
    return stack.database.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  private long held() {
    return count("SELECT count(*) FROM namespace_slots");
  }

  private long running(String namespace) {
    return count(
        "SELECT count(*) FROM jobs WHERE status = 'RUNNING' AND namespace = '" + namespace + "'");
  }

  private static Completion success(Job job, int attempt, Instant at) {
    return Completions.success(job.id(), attempt, at);
  }

  @Test
  void atMostMaxRunningOfTheNamespaceStartAndOtherNamespacesAreNotHeldBack() {
    cap(2);
    List<UUID> capped = submit(CAPPED, "work", "a", 5);
    List<UUID> free = submit("default", "work", "a", 3);
    List<UUID> all = new ArrayList<>(capped);
    all.addAll(free);

    ClaimOutcome outcome = transitions.claimJudged(all, "w1", CAPPED);

    assertThat(outcome.claimed()).extracting(Job::id).containsAll(free).hasSize(2 + 3);
    assertThat(outcome.claimed()).filteredOn(j -> j.namespace().equals(CAPPED)).hasSize(2);
    // in claim order: the first two of the namespace start
    assertThat(outcome.claimed()).extracting(Job::id).contains(capped.get(0), capped.get(1));
    assertThat(outcome.refused())
        .hasSize(3)
        .allSatisfy(r -> assertThat(r.reason()).isEqualTo(Reason.NAMESPACE_FULL));
    assertThat(outcome.slots()).isEmpty(); // namespace slots are not limit slots
    assertThat(held()).isEqualTo(2);
    assertThat(running(CAPPED)).isEqualTo(2);

    // a later claim finds the namespace full
    assertThat(transitions.claimJudged(capped.subList(2, 5), "w2", CAPPED).refused())
        .extracting(ClaimOutcome.Refusal::reason)
        .containsOnly(Reason.NAMESPACE_FULL);
    assertThat(running(CAPPED)).isEqualTo(2);
  }

  @Test
  void theEndOfAnAttemptGivesItsSlotBackAndAStaleEndGivesNothing() {
    cap(1);
    List<UUID> ids = submit(CAPPED, "work", "a", 2);
    Job first = transitions.claimJudged(List.of(ids.get(0)), "w1", CAPPED).claimed().get(0);
    assertThat(transitions.claimJudged(List.of(ids.get(1)), "w2", CAPPED).claimed()).isEmpty();

    assertThat(transitions.finish(List.of(success(first, first.attempt() + 5, clock.instant()))))
        .satisfies(e -> assertThat(e.applied()).isEmpty());
    assertThat(held()).isEqualTo(1);

    assertThat(transitions.finish(List.of(success(first, first.attempt(), clock.instant()))))
        .satisfies(e -> assertThat(e.applied()).containsExactly(first.id()));
    assertThat(held()).isZero();
    assertThat(transitions.claimJudged(List.of(ids.get(1)), "w2", CAPPED).claimed()).hasSize(1);
    assertThat(held()).isEqualTo(1);
  }

  @Test
  void aRescueAndACancelGiveTheirAttemptsSlotBackAndALateResultFreesNothingOfTheNext() {
    cap(1);
    List<UUID> ids = submit(CAPPED, "work", "a", 2);
    Job first = transitions.claimJudged(List.of(ids.get(0)), "w1", CAPPED).claimed().get(0);
    clock.advance(Duration.ofMinutes(5));
    JobTransitions.Ended rescued =
        transitions.rescue(
            List.of(
                new JobTransitions.Rescue(
                    first.id(), first.attempt(), JobState.PENDING, clock.instant(), "lost")),
            clock.instant());
    assertThat(rescued.applied()).containsExactly(first.id());
    assertThat(held()).isZero();

    Job second = transitions.claimJudged(List.of(ids.get(1)), "w2", CAPPED).claimed().get(0);
    assertThat(transitions.finish(List.of(success(first, first.attempt(), clock.instant()))))
        .satisfies(e -> assertThat(e.applied()).isEmpty());
    assertThat(held()).isEqualTo(1);
    assertThat(transitions.cancel(CAPPED, second.id()))
        .isInstanceOf(JobTransitions.CancelResult.Cancelled.class);
    assertThat(held()).isZero();
  }

  @Test
  void aTypeLimitAndTheCapBothHoldAndAFullNamespaceSpendsNoRateToken() {
    cap(2);
    limits.put(
        new Limit(CAPPED, "per-customer", "work", "customerId", 1, null, true, false, null, null));
    List<UUID> a = submit(CAPPED, "work", "a", 2);
    List<UUID> b = submit(CAPPED, "work", "b", 2);
    List<UUID> c = submit(CAPPED, "work", "c", 1);
    List<UUID> all = new ArrayList<>(a);
    all.addAll(b);
    all.addAll(c);

    ClaimOutcome outcome = transitions.claimJudged(all, "w1", CAPPED);

    // one of each key a and b (the type's limit), and c's only job no more: the namespace is full
    assertThat(outcome.claimed()).extracting(Job::id).containsExactlyInAnyOrder(a.get(0), b.get(0));
    assertThat(outcome.slots()).hasSize(2);
    assertThat(outcome.refused())
        .extracting(r -> r.job().id() + " " + r.reason())
        .containsExactlyInAnyOrder(
            a.get(1) + " NO_SLOT", b.get(1) + " NO_SLOT", c.get(0) + " NAMESPACE_FULL");
    assertThat(held()).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM limit_slots")).isEqualTo(2);

    // a rate-limited type of the full namespace: refused before its limit is asked
    limits.put(
        new Limit(
            CAPPED,
            "rated",
            "report",
            null,
            null,
            new Limit.Rate(1, Duration.ofMinutes(1), 1),
            true,
            false,
            null,
            null));
    List<UUID> report = submit(CAPPED, "report", "a", 1);
    assertThat(transitions.claimJudged(report, "w1", CAPPED).refused())
        .extracting(ClaimOutcome.Refusal::reason)
        .containsExactly(Reason.NAMESPACE_FULL);
    assertThat(count("SELECT count(*) FROM limit_keys WHERE type = 'report'"))
        .as("no token spent")
        .isZero();
  }

  @Test
  void aLowerCapStartsNothingUntilTheRunningAreBelowIt() {
    cap(3);
    List<UUID> ids = submit(CAPPED, "work", "a", 4);
    List<Job> running = transitions.claimJudged(ids.subList(0, 3), "w1", CAPPED).claimed();
    assertThat(running).hasSize(3);
    cap(1);
    assertThat(transitions.claimJudged(List.of(ids.get(3)), "w1", CAPPED).claimed()).isEmpty();
    transitions.finish(List.of(success(running.get(0), running.get(0).attempt(), clock.instant())));
    transitions.finish(List.of(success(running.get(1), running.get(1).attempt(), clock.instant())));
    assertThat(transitions.claimJudged(List.of(ids.get(3)), "w1", CAPPED).claimed())
        .as("one still runs: the cap of 1 is reached")
        .isEmpty();
    transitions.finish(List.of(success(running.get(2), running.get(2).attempt(), clock.instant())));
    assertThat(transitions.claimJudged(List.of(ids.get(3)), "w1", CAPPED).claimed()).hasSize(1);
  }

  @Test
  void aClaimThatDidNotTakeTheNamespacesLockStartsNoneOfItsJobsAndTakesNothing() {
    cap(2);
    limits.put(
        new Limit(CAPPED, "per-customer", "work", "customerId", 1, null, true, false, null, null));
    List<UUID> capped = submit(CAPPED, "work", "a", 1);
    capped.addAll(submit(CAPPED, "other", "a", 1));
    List<UUID> free = submit("default", "work", "a", 1);
    List<UUID> all = new ArrayList<>(capped);
    all.addAll(free);

    ClaimOutcome outcome = transitions.claimJudged(all, "w1");

    assertThat(outcome.claimed()).extracting(Job::id).containsExactlyElementsOf(free);
    assertThat(outcome.refused())
        .extracting(r -> r.job().id() + " " + r.reason())
        .containsExactlyInAnyOrder(
            capped.get(0) + " NAMESPACE_FULL", capped.get(1) + " NAMESPACE_FULL");
    assertThat(held()).isZero();
    assertThat(count("SELECT count(*) FROM limit_slots")).isZero();
  }

  @Test
  void concurrentClaimsOfACappedNamespaceFillItExactlyWithNoSlotLeft() throws Exception {
    cap(5);
    limits.put(
        new Limit(CAPPED, "per-customer", "work", "customerId", 3, null, true, false, null, null));
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      ids.addAll(submit(CAPPED, "work", "k" + i, 3));
    }
    Collections.shuffle(ids);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<ClaimOutcome>> claims = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        List<UUID> part = ids.subList(t * 6, t * 6 + 6);
        String worker = "w" + t;
        claims.add(() -> transitions.claimJudged(part, worker, CAPPED));
      }
      int claimed = 0;
      for (Future<ClaimOutcome> f : pool.invokeAll(claims)) {
        claimed += f.get().claimed().size();
      }
      assertThat(claimed).as("the cap, exactly: serialized claims waste no room").isEqualTo(5);
    } finally {
      pool.shutdownNow();
    }
    assertThat(running(CAPPED)).isEqualTo(5);
    assertThat(held()).isEqualTo(5);
    assertThat(count("SELECT count(*) FROM limit_slots"))
        .as("every key slot belongs to a running attempt")
        .isEqualTo(5);
  }
}
