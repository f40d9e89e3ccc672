package io.punctual.api.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.jobs.JobActions;
import io.punctual.api.jobs.QueueWriter;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.JobFilter;
import io.punctual.store.JobTransitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A bulk action outlives the API process working on it: runner A does a batch and "dies" (it is not
 * called again, or its batch's transaction never commits), runner B takes the action over once A's
 * heartbeat is older than {@code staleAfter} and finishes it; every job is acted on once and the
 * counts are exact. The application's own runner is kept out of the way (its {@code bulkStaleAfter}
 * is ten years, so it never finds these actions stale); the test drives A and B with {@code step}
 * and {@code runOnce} and moves the fixture's clock.
 */
class BulkTakeoverIT {
  static final ApiFixture FIXTURE = start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static final Duration STALE = Duration.ofSeconds(30);

  private static ApiFixture start() {
    var settings = ApiFixture.testSettings();
    settings.bulkStaleAfter = Duration.ofDays(3650);
    return ApiFixture.start(settings);
  }

  final Jdbi jdbi = FIXTURE.stores.database().jdbi();
  final BulkActionStore store = new BulkActionStore(jdbi, FIXTURE.clock);
  final QueueWriter queue = new QueueWriter(FIXTURE.stores.queue(), Duration.ofSeconds(2));
  final JobActions actions =
      new JobActions(FIXTURE.stores.queries(), FIXTURE.stores.transitions(), queue::enqueue, queue);

  private BulkRunner runner(String owner) {
    return new BulkRunner(
        store,
        actions,
        (ns, wanted) -> new NamespaceGate.Room.Take(wanted),
        new BulkRunner.Pacing(2, STALE),
        FIXTURE.clock,
        owner);
  }

  @Test
  void aSecondProcessFinishesTheActionOfOneThatDiedMidway() {
    String ns = "takeover-retry";
    List<UUID> failed = failedJobs(ns, 7);
    UUID id = accept(ns, "retry", JobState.FAILED, "api-a");
    BulkRunner a = runner("api-a");
    BulkRunner b = runner("api-b");

    assertThat(a.step(id)).isTrue(); // one batch of two, then A dies
    assertThat(progress(ns, id).done()).isEqualTo(2);
    assertThat(b.runOnce()).as("A's heartbeat is fresh").isZero();

    FIXTURE.clock.advance(STALE.plusSeconds(1));
    assertThat(b.runOnce()).isEqualTo(1);

    BulkAction end = progress(ns, id);
    assertThat(end.status()).isEqualTo("done");
    assertThat(end.count()).isEqualTo(7);
    assertThat(end.done()).isEqualTo(7);
    assertThat(end.failed()).isZero();
    assertThat(end.error()).isNull();
    for (UUID job : failed) {
      assertThat(find(ns, job).status()).isEqualTo(JobState.PENDING);
    }
    assertThat(listed(id)).isZero();
    // A comes back to life: the action is no longer its own, it does nothing
    assertThat(a.step(id)).isFalse();
    assertThat(progress(ns, id)).isEqualTo(end);
  }

  @Test
  void aBatchWhoseTransactionNeverCommitsIsDoneOnceByTheNextOwner() {
    String ns = "takeover-uncommitted";
    List<UUID> pending = pendingJobs(ns, 5);
    UUID id = accept(ns, "cancel", JobState.PENDING, "api-a");
    // A cancels a batch, then dies before its transaction commits
    IllegalStateException died = null;
    try {
      store.step(
          id,
          "api-a",
          2,
          (h, owned, ids, now) -> {
            ids.forEach(job -> JobTransitions.cancelIn(h, owned.namespace(), job, now));
            throw new IllegalStateException("the process died here");
          });
    } catch (IllegalStateException e) {
      died = e;
    }
    assertThat(died).hasMessage("the process died here");
    for (UUID job : pending) {
      assertThat(find(ns, job).status()).isEqualTo(JobState.PENDING);
    }
    assertThat(listed(id)).isEqualTo(5);
    assertThat(progress(ns, id).done()).isZero();

    FIXTURE.clock.advance(STALE.plusSeconds(1));
    assertThat(runner("api-b").runOnce()).isEqualTo(1);

    BulkAction end = progress(ns, id);
    assertThat(end.status()).isEqualTo("done");
    assertThat(end.done()).isEqualTo(5);
    assertThat(end.failed()).isZero();
    for (UUID job : pending) {
      assertThat(find(ns, job).status()).isEqualTo(JobState.CANCELLED);
    }
  }

  @Test
  void aCleanlyStoppedProcessGivesItsActionsUpAtOnce() throws Exception {
    String ns = "takeover-stop";
    pendingJobs(ns, 3);
    UUID id = accept(ns, "cancel", JobState.PENDING, "api-a");
    BulkRunner a = runner("api-a");
    assertThat(a.step(id)).isTrue();
    a.stop();

    // no clock move: the action has no owner, so the next round takes it
    assertThat(runner("api-b").runOnce()).isEqualTo(1);
    BulkAction end = progress(ns, id);
    assertThat(end.status()).isEqualTo("done");
    assertThat(end.done()).isEqualTo(3);
    assertThat(end.failed()).isZero();
  }

  @Test
  void anActionTakenOverTooOftenWithoutProgressIsMarkedFailedWithTheReason() {
    String ns = "takeover-poison";
    List<UUID> failed = failedJobs(ns, 3);
    UUID id = accept(ns, "retry", JobState.FAILED, "api-a");
    // each taker dies before its first batch
    for (int i = 1; i <= BulkRunner.MAX_TAKEOVERS; i++) {
      FIXTURE.clock.advance(STALE.plusSeconds(1));
      List<BulkActionStore.TakenOver> taken =
          store.takeOver("api-dies-" + i, FIXTURE.clock.instant().minus(STALE), 10);
      int round = i;
      assertThat(taken)
          .filteredOn(t -> t.action().id().equals(id))
          .singleElement()
          .satisfies(t -> assertThat(t.takeovers()).isEqualTo(round));
    }
    FIXTURE.clock.advance(STALE.plusSeconds(1));
    assertThat(runner("api-b").runOnce()).isGreaterThanOrEqualTo(1);

    BulkAction end = progress(ns, id);
    assertThat(end.status()).isEqualTo("failed");
    assertThat(end.error()).startsWith("abandoned: taken over 3 times");
    assertThat(end.done()).isZero();
    for (UUID job : failed) {
      assertThat(find(ns, job).status()).isEqualTo(JobState.FAILED);
    }
    assertThat(listed(id)).isZero();
  }

  @Test
  void theApiRunsTheActionsItAccepts() {
    String ns = "takeover-api";
    HttpSupport http = FIXTURE.http().namespace(ns);
    pendingJobs(ns, 3);
    Reply started =
        http.post("/api/v1/jobs/bulk", "{\"action\":\"cancel\",\"filter\":{\"type\":\"t\"}}");
    assertThat(started.status()).isEqualTo(202);
    UUID id = UUID.fromString(started.json().get("id").asText());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !"running".equals(progress(ns, id).status()));
    assertThat(progress(ns, id).done()).isEqualTo(3);
    String owner =
        jdbi.withHandle(
            h ->
                h.createQuery("SELECT owner FROM bulk_actions WHERE id = :id")
                    .bind("id", id)
                    .mapTo(String.class)
                    .one());
    assertThat(owner).as("an ended action has no owner").isNull();
  }

  /** Stores an action of {@code action} on the jobs of {@code ns} in {@code status}. */
  private UUID accept(String ns, String action, JobState status, String owner) {
    UUID id = UUID.randomUUID();
    JobFilter filter = new JobFilter(ns, status, null, null, null, null, null, null);
    assertThat(store.create(id, action, "{}", null, filter, 1000, owner)).isPresent();
    return id;
  }

  private BulkAction progress(String ns, UUID id) {
    return store.find(ns, id).orElseThrow();
  }

  private int listed(UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT count(*) FROM bulk_action_jobs WHERE bulk_id = :id")
                .bind("id", id)
                .mapTo(Integer.class)
                .one());
  }

  private static Job find(String ns, UUID id) {
    return FIXTURE.stores.queries().find(ns, id).orElseThrow();
  }

  private static List<UUID> pendingJobs(String ns, int n) {
    HttpSupport http = FIXTURE.http().namespace(ns);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Reply reply = http.post("/api/v1/jobs", "{\"type\":\"t\",\"maxAttempts\":1}");
      assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
      ids.add(UUID.fromString(reply.json().get("id").asText()));
    }
    return ids;
  }

  private static List<UUID> failedJobs(String ns, int n) {
    List<UUID> ids = pendingJobs(ns, n);
    JobTransitions transitions = FIXTURE.stack.transitions;
    for (Job job : transitions.claim(ids, "w-1")) {
      Completion failed =
          new Completion(
              job.id(),
              job.attempt(),
              JobState.FAILED,
              null,
              ExecutionStatus.FAILED,
              FIXTURE.clock.instant(),
              5,
              "boom",
              null,
              null,
              List.of());
      assertThat(transitions.finish(List.of(failed)).applied()).hasSize(1);
    }
    for (UUID id : ids) {
      assertThat(find(ns, id).status()).isEqualTo(JobState.FAILED);
    }
    return ids;
  }
}
