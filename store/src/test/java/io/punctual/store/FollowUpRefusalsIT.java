package io.punctual.store;

import static io.punctual.model.RunCondition.ON_FAILURE;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.model.Upstream;
import io.punctual.store.JobTransitions.Ended;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Follow-ups a handler spawned that the store cannot store: the completion that spawned them is
 * recorded as a failed attempt saying why, fenced by its attempt number, and the other completions
 * of its batch are recorded as if it were not there.
 */
class FollowUpRefusalsIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobSubmissions submissions = stack.submissions;
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;

  @BeforeEach
  void startTheClockNow() {
    clock.set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  @AfterEach
  void close() {
    stack.close();
  }

  private Job running() {
    Job job = submissions.submit(List.of(aJob().runAt(clock.instant()).build())).get(0).job();
    assertThat(transitions.claim(List.of(job.id()), "w")).hasSize(1);
    return job;
  }

  private Completion success(Job job, NewJob... spawned) {
    return success(job, 1, spawned);
  }

  private Completion success(Job job, int attempt, NewJob... spawned) {
    return new Completion(
        job.id(),
        attempt,
        JobState.SUCCEEDED,
        null,
        ExecutionStatus.SUCCEEDED,
        clock.instant(),
        4,
        null,
        null,
        null,
        List.of(spawned));
  }

  private static NewJob followUp(String type) {
    return aJob().type(type).build();
  }

  /** A follow-up as JobContext.spawn makes it: its request hash derived from its key. */
  private static NewJob keyed(String type, String key) {
    return aJob().type(type).idempotencyKey(key, "spawned:" + key).build();
  }

  private long count(String sql, Object id) {
    return stack
        .database
        .jdbi()
        .withHandle(h -> h.createQuery(sql).bind("id", id).mapTo(Long.class).one());
  }

  private Job find(Job job) {
    return queries.find(job.namespace(), job.id()).orElseThrow();
  }

  private List<Job> childrenOf(Job job) {
    return queries
        .list(new JobQueries.JobQuery("default", null, null, null, null, null, null, 100))
        .items()
        .stream()
        .filter(j -> job.id().equals(j.parentId()))
        .toList();
  }

  /**
   * {@code job}'s success was recorded as a failure saying {@code why}, nothing it spawned kept.
   */
  private void assertRefused(Ended ended, Job job, String why, String spawnedType) {
    assertThat(ended.applied()).contains(job.id());
    assertThat(ended.refused()).containsKey(job.id());
    assertThat(ended.refused().get(job.id()))
        .startsWith(JobTransitions.FOLLOW_UPS_REFUSED)
        .contains(why);
    Job failed = find(job);
    assertThat(failed.status()).isEqualTo(JobState.FAILED);
    assertThat(failed.lastError()).isEqualTo(ended.refused().get(job.id()));
    assertThat(failed.result()).isNull();
    Execution execution =
        queries.executions(job.namespace(), job.id()).stream()
            .filter(e -> e.attempt() == failed.attempt())
            .findFirst()
            .orElseThrow();
    assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
    assertThat(execution.error()).isEqualTo(failed.lastError());
    assertThat(childrenOf(job))
        .as("nothing it spawned is stored")
        .extracting(Job::type)
        .doesNotContain(spawnedType);
  }

  private void assertSucceededWithChildren(Ended ended, Job job, String... types) {
    assertThat(ended.applied()).contains(job.id());
    assertThat(ended.refused()).doesNotContainKey(job.id());
    assertThat(find(job).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(childrenOf(job)).extracting(Job::type).containsExactlyInAnyOrder(types);
  }

  @Test
  void twoHandlersOfOneBatchSpawningTheSameKeyStoreOneJob() {
    Job a = running();
    Job b = running();

    Ended ended =
        transitions.finish(
            List.of(success(a, keyed("report", "k1")), success(b, keyed("report", "k1"))));

    assertThat(ended.applied()).containsExactlyInAnyOrder(a.id(), b.id());
    assertThat(ended.refused()).isEmpty();
    assertThat(find(a).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(find(b).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(count("SELECT count(*) FROM jobs WHERE idempotency_key = :id", "k1")).isEqualTo(1);
    List<Job> report = childrenOf(a);
    assertThat(report).hasSize(1);
    assertThat(ended.released()).extracting(QueueEntry::id).containsExactly(report.get(0).id());
    assertThat(childrenOf(b)).as("b's follow-up is a repeat of a's").isEmpty();
  }

  @Test
  void aKeyAlreadyUsedWithAnotherRequestFailsOnlyTheAttemptThatSpawnedIt() {
    submissions.submit(List.of(aJob().idempotencyKey("taken", "another request").build()));
    Job bad = running();
    Job good = running();
    Job plain = running();
    Job alert =
        submissions
            .submit(
                List.of(
                    aJob()
                        .type("alert")
                        .waitsFor(Upstream.stored(bad.id(), ON_FAILURE).asParent())
                        .build()))
            .get(0)
            .job();

    Ended ended =
        transitions.finish(
            List.of(
                success(good, followUp("next")),
                success(bad, keyed("next", "taken")),
                success(plain)));

    assertRefused(
        ended,
        bad,
        "follow-up 0: idempotencyKey was already used with a different request ('taken')",
        "next");
    assertSucceededWithChildren(ended, good, "next");
    assertSucceededWithChildren(ended, plain);
    assertThat(find(alert).status())
        .as("the failure moves the jobs waiting for it on")
        .isEqualTo(JobState.PENDING);
    assertThat(ended.released()).extracting(QueueEntry::id).contains(alert.id());
  }

  @Test
  void aFollowUpWaitingForAJobThatDoesNotExistHereFailsOnlyItsSpawner() {
    Job elsewhere = submissions.submit(List.of(aJob().namespace("other").build())).get(0).job();
    UUID missing = UUID.randomUUID();
    Job otherNamespace = running();
    Job noSuchJob = running();
    Job good = running();

    Ended ended =
        transitions.finish(
            List.of(
                success(
                    otherNamespace,
                    aJob().type("x").waitsFor(Upstream.stored(elsewhere.id(), ON_SUCCESS)).build()),
                success(good, followUp("next"), followUp("and-next")),
                success(
                    noSuchJob,
                    aJob().type("y").waitsFor(Upstream.stored(missing, ON_SUCCESS)).build())));

    assertRefused(ended, otherNamespace, "no job " + elsewhere.id() + " in this namespace", "x");
    assertRefused(ended, noSuchJob, "no job " + missing + " in this namespace", "y");
    assertSucceededWithChildren(ended, good, "next", "and-next");
  }

  @Test
  void followUpsThatWaitForAFollowUpNotBeforeThemAreRefusedBeforeTouchingTheDatabase() {
    Job outOfRange = running();
    Job cycle = running();
    Job good = running();

    Ended ended =
        transitions.finish(
            List.of(
                success(
                    good,
                    followUp("first"),
                    aJob().type("second").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build()),
                // index 1 does not exist in its own list: it used to name good's second follow-up
                success(
                    outOfRange, aJob().type("z").waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build()),
                success(
                    cycle,
                    aJob().type("p").waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build(),
                    aJob().type("q").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build())));

    assertRefused(
        ended,
        outOfRange,
        "follow-up 0 waits for follow-up 1: a follow-up may wait only for an earlier one",
        "z");
    assertRefused(ended, cycle, "follow-up 0 waits for follow-up 1", "p");
    assertSucceededWithChildren(ended, good, "first", "second");
    Job first =
        childrenOf(good).stream().filter(j -> j.type().equals("first")).findFirst().orElseThrow();
    Job second =
        childrenOf(good).stream().filter(j -> j.type().equals("second")).findFirst().orElseThrow();
    assertThat(first.status()).isEqualTo(JobState.PENDING);
    assertThat(second.status()).isEqualTo(JobState.BLOCKED);
    assertThat(count("SELECT count(*) FROM job_dependencies WHERE depends_on_id = :id", first.id()))
        .as("only good's second follow-up waits for its first")
        .isEqualTo(1);
  }

  @Test
  void aRefusalIsFencedByTheAttemptNumberLikeAnyResult() {
    Job job = running();
    NewJob waitsForItself = aJob().type("self").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build();

    Ended stale = transitions.finish(List.of(success(job, 2, waitsForItself)));

    assertThat(stale.applied()).isEmpty();
    assertThat(stale.refused()).isEmpty();
    assertThat(find(job).status()).as("attempt 1 still runs").isEqualTo(JobState.RUNNING);

    Ended current = transitions.finish(List.of(success(job, 1, waitsForItself)));

    assertRefused(current, job, "follow-up 0 waits for follow-up 0", "self");
  }

  @Test
  void aFollowUpWaitingTwiceForTheSameJobOrForItsSpawnerIsRefused() {
    Job spawnerTwice = running();
    Job sameTwice = running();
    Job other = running();

    Ended ended =
        transitions.finish(
            List.of(
                success(
                    spawnerTwice,
                    aJob()
                        .type("a")
                        .waitsFor(Upstream.stored(spawnerTwice.id(), ON_SUCCESS))
                        .build()),
                success(
                    sameTwice,
                    aJob()
                        .type("b")
                        .waitsFor(
                            Upstream.stored(other.id(), ON_SUCCESS),
                            Upstream.stored(other.id(), ON_FAILURE))
                        .build())));

    assertRefused(ended, spawnerTwice, "waits for the job that spawned it", "a");
    assertRefused(ended, sameTwice, "waits for the same job twice", "b");
  }
}
