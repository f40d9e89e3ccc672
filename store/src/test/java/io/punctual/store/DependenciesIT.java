package io.punctual.store;

import static io.punctual.model.RunCondition.ALWAYS;
import static io.punctual.model.RunCondition.ON_FAILURE;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.model.Upstream;
import io.punctual.store.JobTransitions.CancelResult;
import io.punctual.store.JobTransitions.Ended;
import io.punctual.store.JobTransitions.Rescue;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs that wait for other jobs, on real PostgreSQL: each run condition, required and optional
 * dependencies, cascades of skips, graphs, jobs that name stored jobs, and two dependencies ending
 * at the same moment in two transactions.
 */
class DependenciesIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobSubmissions submissions = stack.submissions;
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;

  /**
   * Jobs built without a runAt are due at the real time they were built, and a claim takes only
   * jobs due within a second of the clock: start the clock after the database is created (which may
   * take over a second on a busy machine), not before.
   */
  @BeforeEach
  void startTheClockNow() {
    clock.set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  @AfterEach
  void close() {
    stack.close();
  }

  /** Stores jobs in one submission; returns them as stored. */
  private List<Job> submit(NewJob... jobs) {
    return submissions.submit(List.of(jobs)).stream().map(JobSubmissions.Submitted::job).toList();
  }

  private Job find(Job job) {
    return queries.find(job.namespace(), job.id()).orElseThrow();
  }

  private NewJob plain() {
    return aJob().runAt(clock.instant()).build();
  }

  /** Runs a job to the given end (claim, then finish); returns what the finish released. */
  private Ended end(Job job, JobState end) {
    assertThat(transitions.claim(List.of(job.id()), "w")).hasSize(1);
    return transitions.finish(List.of(completion(job.id(), end, List.of())));
  }

  private Completion completion(UUID id, JobState end, List<NewJob> spawned) {
    return new Completion(
        id,
        1,
        end,
        null,
        end == JobState.SUCCEEDED ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED,
        clock.instant(),
        3,
        end == JobState.SUCCEEDED ? null : "boom",
        null,
        null,
        spawned);
  }

  private static List<UUID> ids(List<QueueEntry> entries) {
    return entries.stream().map(QueueEntry::id).toList();
  }

  @Test
  void aChildWaitsBlockedAndRunsOnlyWhenItsConditionHolds() {
    List<Job> jobs =
        submit(
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS).asParent()).build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_FAILURE).asParent()).build(),
            aJob().waitsFor(Upstream.inBatch(0, ALWAYS).asParent()).build());
    Job parent = jobs.get(0);
    assertThat(jobs.subList(1, 4)).allMatch(j -> j.status() == JobState.BLOCKED);
    assertThat(jobs.get(1).parentId()).isEqualTo(parent.id());
    assertThat(jobs.get(2).runCondition()).isEqualTo(ON_FAILURE);

    Ended ended = end(parent, JobState.SUCCEEDED);

    assertThat(ids(ended.released())).containsExactlyInAnyOrder(jobs.get(1).id(), jobs.get(3).id());
    assertThat(find(jobs.get(1)).status()).isEqualTo(JobState.PENDING);
    assertThat(find(jobs.get(3)).status()).isEqualTo(JobState.PENDING);
    Job onFailure = find(jobs.get(2));
    assertThat(onFailure.status()).isEqualTo(JobState.SKIPPED);
    assertThat(onFailure.finishedAt()).isEqualTo(clock.instant());
    assertThat(onFailure.lastError())
        .isEqualTo("skipped: parent " + parent.id() + " ended SUCCEEDED, run condition on_failure");
  }

  @Test
  void anOnFailureChildRunsWhenItsParentFails() {
    List<Job> jobs =
        submit(
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_FAILURE).asParent()).build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS).asParent()).build());

    end(jobs.get(0), JobState.FAILED);

    assertThat(find(jobs.get(1)).status()).isEqualTo(JobState.PENDING);
    assertThat(find(jobs.get(2)).status()).isEqualTo(JobState.SKIPPED);
  }

  @Test
  void aRequiredDependencyThatFailsSkipsWhileAnOptionalOneOnlyHasToEnd() {
    List<Job> jobs =
        submit(
            plain(),
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS), Upstream.inBatch(1, ALWAYS)).build(),
            aJob().waitsFor(Upstream.inBatch(0, ALWAYS), Upstream.inBatch(1, ALWAYS)).build());
    Job required = jobs.get(0);
    Job optional = jobs.get(1);

    end(optional, JobState.FAILED);
    assertThat(find(jobs.get(2)).status())
        .as("still waits for the required one")
        .isEqualTo(JobState.BLOCKED);
    assertThat(find(jobs.get(3)).status()).isEqualTo(JobState.BLOCKED);

    end(required, JobState.FAILED);
    Job needy = find(jobs.get(2));
    assertThat(needy.status()).isEqualTo(JobState.SKIPPED);
    assertThat(needy.lastError())
        .isEqualTo(
            "skipped: required dependency "
                + required.id()
                + " ended FAILED, run condition on_success");
    assertThat(find(jobs.get(3)).status()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aDiamondJoinsOnlyWhenBothBranchesSucceeded() {
    List<Job> jobs =
        submit(
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
            aJob()
                .waitsFor(Upstream.inBatch(1, ON_SUCCESS), Upstream.inBatch(2, ON_SUCCESS))
                .build());

    assertThat(ids(end(jobs.get(0), JobState.SUCCEEDED).released()))
        .containsExactlyInAnyOrder(jobs.get(1).id(), jobs.get(2).id());
    assertThat(end(jobs.get(1), JobState.SUCCEEDED).released()).isEmpty();
    assertThat(find(jobs.get(3)).status()).isEqualTo(JobState.BLOCKED);
    assertThat(ids(end(jobs.get(2), JobState.SUCCEEDED).released()))
        .containsExactly(jobs.get(3).id());
  }

  @Test
  void aSkipCascadesDownTheChainInTheSameStep() {
    List<Job> jobs =
        submit(
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.inBatch(1, ALWAYS)).build());

    Ended ended = end(jobs.get(0), JobState.FAILED);

    assertThat(find(jobs.get(1)).status()).isEqualTo(JobState.SKIPPED);
    assertThat(find(jobs.get(2)).status()).isEqualTo(JobState.SKIPPED);
    assertThat(find(jobs.get(2)).lastError()).contains(jobs.get(1).id().toString(), "SKIPPED");
    assertThat(ids(ended.released()))
        .as("an optional edge only needs the skipped job to be final")
        .containsExactly(jobs.get(3).id());
  }

  @Test
  void aJobNamingStoredJobsIsJudgedAtOnce() {
    Job failed = submit(plain()).get(0);
    end(failed, JobState.FAILED);
    Job running = submit(plain()).get(0);
    transitions.claim(List.of(running.id()), "w");

    List<Job> late =
        submit(
            aJob().waitsFor(Upstream.stored(failed.id(), ON_FAILURE).asParent()).build(),
            aJob().waitsFor(Upstream.stored(failed.id(), ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.stored(running.id(), ON_SUCCESS)).build());

    assertThat(late.get(0).status()).isEqualTo(JobState.PENDING);
    assertThat(late.get(1).status()).isEqualTo(JobState.SKIPPED);
    assertThat(late.get(2).status()).isEqualTo(JobState.BLOCKED);
    assertThat(
            ids(
                transitions
                    .finish(List.of(completion(running.id(), JobState.SUCCEEDED, List.of())))
                    .released()))
        .containsExactly(late.get(2).id());
  }

  @Test
  void aStoredJobMustExistInTheSameNamespace() {
    Job elsewhere = submit(aJob().namespace("other").runAt(clock.instant()).build()).get(0);
    UUID missing = UUID.randomUUID();

    assertThatThrownBy(
            () -> submit(plain(), aJob().waitsFor(Upstream.stored(elsewhere.id(), ALWAYS)).build()))
        .isInstanceOfSatisfying(
            UnknownUpstreamException.class, e -> assertThat(e.index()).isEqualTo(1));
    assertThatThrownBy(() -> submit(aJob().waitsFor(Upstream.stored(missing, ALWAYS)).build()))
        .isInstanceOf(UnknownUpstreamException.class);
    assertThat(
            queries
                .list(new JobQueries.JobQuery("default", null, null, null, null, null, null, 10))
                .items())
        .as("nothing half-written")
        .isEmpty();
  }

  @Test
  void jobsWaitingForEachOtherInACircleAreRefused() {
    assertThatThrownBy(
            () ->
                submit(
                    aJob().waitsFor(Upstream.inBatch(2, ON_SUCCESS)).build(),
                    aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
                    aJob().waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cycle");
    assertThatThrownBy(() -> submit(aJob().waitsFor(Upstream.inBatch(0, ALWAYS)).build()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cancellingAWaitingJobOrWhatItWaitsForMovesTheGraphOn() {
    List<Job> jobs =
        submit(
            plain(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.inBatch(1, ALWAYS)).build(),
            aJob().waitsFor(Upstream.inBatch(0, ALWAYS)).build());

    CancelResult blocked = transitions.cancel("default", jobs.get(1).id());
    assertThat(blocked)
        .isInstanceOfSatisfying(
            CancelResult.Cancelled.class,
            c -> {
              assertThat(c.previous()).isEqualTo(JobState.BLOCKED);
              assertThat(ids(c.released())).containsExactly(jobs.get(2).id());
            });

    CancelResult pending = transitions.cancel("default", jobs.get(0).id());
    assertThat(pending)
        .isInstanceOfSatisfying(
            CancelResult.Cancelled.class,
            c -> assertThat(ids(c.released())).containsExactly(jobs.get(3).id()));
  }

  @Test
  void anAttemptThatFailsForGoodThroughRescueReleasesItsDependents() {
    List<Job> jobs =
        submit(
            aJob().runAt(clock.instant()).maxAttempts(1).build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_FAILURE).asParent()).build());
    transitions.claim(List.of(jobs.get(0).id()), "dead");

    Ended ended =
        transitions.rescue(
            List.of(new Rescue(jobs.get(0).id(), 1, JobState.FAILED, null, "lost")),
            clock.instant().plusSeconds(1));

    assertThat(ended.applied()).containsExactly(jobs.get(0).id());
    assertThat(ids(ended.released())).containsExactly(jobs.get(1).id());
  }

  @Test
  void spawnedJobsAreStoredOnlyWithTheSuccessThatSpawnedThem() {
    Job spawner = submit(plain()).get(0);
    Job stale = submit(plain()).get(0);
    transitions.claim(List.of(spawner.id(), stale.id()), "w");
    NewJob first = aJob().type("follow-up").runAt(clock.instant()).build();
    NewJob second =
        aJob().type("after-follow-up").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build();

    Ended ended =
        transitions.finish(
            List.of(
                completion(spawner.id(), JobState.SUCCEEDED, List.of(first, second)),
                // attempt 2 of a job running attempt 1: refused, so its follow-up is not stored
                new Completion(
                    stale.id(),
                    2,
                    JobState.SUCCEEDED,
                    null,
                    ExecutionStatus.SUCCEEDED,
                    clock.instant(),
                    1,
                    null,
                    null,
                    null,
                    List.of(aJob().type("never").build()))));

    assertThat(ended.applied()).containsExactly(spawner.id());
    assertThat(ended.released()).hasSize(1);
    Job followUp = queries.find("default", ended.released().get(0).id()).orElseThrow();
    assertThat(followUp.type()).isEqualTo("follow-up");
    assertThat(followUp.status()).isEqualTo(JobState.PENDING);
    assertThat(followUp.parentId()).isEqualTo(spawner.id());
    List<Job> all =
        queries
            .list(new JobQueries.JobQuery("default", null, null, null, null, null, null, 20))
            .items();
    assertThat(all).extracting(Job::type).doesNotContain("never");
    Job afterFollowUp =
        all.stream().filter(j -> j.type().equals("after-follow-up")).findFirst().orElseThrow();
    assertThat(afterFollowUp.status()).isEqualTo(JobState.BLOCKED);
    assertThat(ids(end(followUp, JobState.SUCCEEDED).released()))
        .containsExactly(afterFollowUp.id());
  }

  /**
   * A job waiting for an idempotent repeat (its in-batch upstream's key matched a stored, running
   * job E) must share-lock E like a job named by id: E's finish then waits for the submission to
   * commit and sees the new edge. Without the lock, E's finish commits between the submission's
   * judgement and its commit, sees no edge, and the waiting job stays BLOCKED for ever.
   */
  @Test
  void aJobWaitingForAnIdempotentRepeatCannotMissItsEnd() throws Exception {
    Job running =
        submit(aJob().runAt(clock.instant()).idempotencyKey("extract", "same").build()).get(0);
    transitions.claim(List.of(running.id()), "w");
    List<NewJob> jobs =
        List.of(
            aJob().runAt(clock.instant()).idempotencyKey("extract", "same").build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build());
    Instant now = clock.instant();
    List<UUID> ids = submissions.prepare(jobs, now);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (org.jdbi.v3.core.Handle h = submissions.jdbi().open()) {
      h.begin();
      List<JobSubmissions.Submitted> stored = submissions.submitIn(h, jobs, ids, now, false);
      assertThat(stored.get(0).created()).isFalse();
      assertThat(stored.get(0).job().id()).isEqualTo(running.id());
      Job waiting = stored.get(1).job();
      assertThat(waiting.status()).isEqualTo(JobState.BLOCKED);

      Future<Ended> finish =
          pool.submit(
              () ->
                  transitions.finish(
                      List.of(completion(running.id(), JobState.SUCCEEDED, List.of()))));
      Thread.sleep(500);
      assertThat(finish.isDone()).as("the finish waits for the submission to commit").isFalse();
      h.commit();

      assertThat(ids(finish.get(10, TimeUnit.SECONDS).released())).containsExactly(waiting.id());
      assertThat(find(waiting).status()).isEqualTo(JobState.PENDING);
    } finally {
      pool.shutdownNow();
    }
  }

  private Integer waitingFor(Job job) {
    return stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT waiting_for FROM jobs WHERE id = :id")
                    .bind("id", job.id())
                    .mapTo(Integer.class)
                    .one());
  }

  /**
   * A fan-in counts the edges it still waits on: the end of one dependency is judged on that edge
   * alone (the count goes down), and all edges are read again only when it reaches zero.
   */
  @Test
  void aFanInCountsDownItsOpenEdges() {
    List<Job> jobs =
        submit(
            plain(),
            plain(),
            plain(),
            aJob()
                .waitsFor(
                    Upstream.inBatch(0, ON_SUCCESS),
                    Upstream.inBatch(1, ALWAYS),
                    Upstream.inBatch(2, ON_SUCCESS))
                .build());
    Job fanIn = jobs.get(3);
    assertThat(waitingFor(fanIn)).isEqualTo(3);

    assertThat(end(jobs.get(1), JobState.FAILED).released()).isEmpty();
    assertThat(waitingFor(fanIn)).as("an optional dependency only has to end").isEqualTo(2);
    assertThat(end(jobs.get(0), JobState.SUCCEEDED).released()).isEmpty();
    assertThat(waitingFor(fanIn)).isEqualTo(1);
    assertThat(find(fanIn).status()).isEqualTo(JobState.BLOCKED);

    assertThat(ids(end(jobs.get(2), JobState.SUCCEEDED).released())).containsExactly(fanIn.id());
    assertThat(find(fanIn).status()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aJobStoredAfterSomeOfItsDependenciesEndedCountsOnlyTheOthers() {
    Job done = submit(plain()).get(0);
    end(done, JobState.SUCCEEDED);
    Job running = submit(plain()).get(0);
    transitions.claim(List.of(running.id()), "w");

    Job late =
        submit(
                aJob()
                    .waitsFor(
                        Upstream.stored(done.id(), ON_SUCCESS),
                        Upstream.stored(running.id(), ON_SUCCESS))
                    .build())
            .get(0);

    assertThat(late.status()).isEqualTo(JobState.BLOCKED);
    assertThat(waitingFor(late)).isEqualTo(1);
    assertThat(
            ids(
                transitions
                    .finish(List.of(completion(running.id(), JobState.SUCCEEDED, List.of())))
                    .released()))
        .containsExactly(late.id());
  }

  /**
   * A follow-up waiting for its spawner and for another job that ended in the same batch: both ends
   * are counted once, when the follow-up is stored, and it waits for the one left.
   */
  @Test
  void aFollowUpCountsTheEndsOfItsOwnBatchOnce() {
    List<Job> jobs = submit(plain(), plain(), plain());
    Job spawner = jobs.get(0);
    Job other = jobs.get(1);
    Job last = jobs.get(2);
    transitions.claim(List.of(spawner.id(), other.id(), last.id()), "w");
    NewJob followUp =
        aJob()
            .type("follow-up")
            .waitsFor(Upstream.stored(other.id(), ON_SUCCESS), Upstream.stored(last.id(), ALWAYS))
            .build();

    transitions.finish(
        List.of(
            completion(other.id(), JobState.SUCCEEDED, List.of()),
            completion(spawner.id(), JobState.SUCCEEDED, List.of(followUp))));

    Job stored =
        queries
            .list(new JobQueries.JobQuery("default", null, "follow-up", null, null, null, null, 1))
            .items()
            .get(0);
    assertThat(stored.status()).isEqualTo(JobState.BLOCKED);
    assertThat(waitingFor(stored)).isEqualTo(1);
    assertThat(
            ids(
                transitions
                    .finish(List.of(completion(last.id(), JobState.FAILED, List.of())))
                    .released()))
        .containsExactly(stored.id());
  }

  /**
   * The write-skew a naive check would allow: A and B end at the same moment in two transactions,
   * each sees the other still running, and C waits forever. Locking C before judging it makes the
   * second transaction wait for the first and see both ends.
   */
  @Test
  void twoDependenciesEndingAtTheSameMomentReleaseTheJoinExactlyOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 40; round++) {
        List<Job> jobs =
            submit(
                plain(),
                plain(),
                aJob()
                    .waitsFor(Upstream.inBatch(0, ON_SUCCESS), Upstream.inBatch(1, ON_SUCCESS))
                    .build());
        transitions.claim(List.of(jobs.get(0).id(), jobs.get(1).id()), "w");
        CyclicBarrier together = new CyclicBarrier(2);
        List<Future<Ended>> ends = new ArrayList<>();
        for (Job dependency : jobs.subList(0, 2)) {
          ends.add(
              pool.submit(
                  () -> {
                    together.await();
                    return transitions.finish(
                        List.of(completion(dependency.id(), JobState.SUCCEEDED, List.of())));
                  }));
        }
        List<UUID> released = new ArrayList<>();
        for (Future<Ended> e : ends) {
          released.addAll(ids(e.get().released()));
        }
        assertThat(released).as("round %d", round).containsExactly(jobs.get(2).id());
        assertThat(find(jobs.get(2)).status()).isEqualTo(JobState.PENDING);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
