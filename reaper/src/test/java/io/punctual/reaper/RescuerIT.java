package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.model.Backoff;
import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.store.Database;
import io.punctual.store.config.PostgresSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RescuerIT {
  private final ReaperFixture f = new ReaperFixture();
  private final Rescuer rescuer = f.rescuer(new Random(1));

  @AfterEach
  void close() {
    f.close();
  }

  private Job claimed(NewJob job, String worker) {
    Job stored = f.store(List.of(job)).get(0);
    return f.stores.transitions().claim(List.of(stored.id()), worker).get(0);
  }

  private NewJob due() {
    return aJob()
        .runAt(f.clock.instant())
        .backoff(new Backoff.Fixed(Duration.ofSeconds(5)))
        .build();
  }

  @Test
  void aSilentAttemptWithoutLeaseGoesBackToPendingAndIsRecordedLost() {
    Job running = claimed(due(), "dead-worker");
    f.clock.advance(Duration.ofSeconds(30));
    assertThat(rescuer.runOnce()).as("heartbeat only 30s old").isZero();

    f.clock.advance(Duration.ofSeconds(31));
    assertThat(rescuer.runOnce()).isEqualTo(1);

    Job after = f.find(running);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.attempt()).isEqualTo(1);
    assertThat(after.runAt()).isEqualTo(f.clock.instant().plusSeconds(5));
    assertThat(after.lastError()).contains("attempt 1 lost", "dead-worker");
    assertThat(f.queued(after)).as("a retry inside the horizon goes back into Redis").isTrue();
    List<Execution> history = f.stores.queries().executions(after.namespace(), after.id());
    assertThat(history).hasSize(1);
    assertThat(history.get(0).status()).isEqualTo(ExecutionStatus.LOST);
    assertThat(history.get(0).workerId()).isEqualTo("dead-worker");
    assertThat(history.get(0).durationMs()).isEqualTo(61_000L);
  }

  @Test
  void theLostWorkersLateResultIsRefusedAndTheLostRecordStays() {
    Job running = claimed(due(), "paused-worker");
    f.clock.advance(Duration.ofSeconds(61));
    rescuer.runOnce();

    Set<UUID> applied =
        f.stores
            .transitions()
            .finish(
                List.of(
                    new Completion(
                        running.id(),
                        1,
                        JobState.SUCCEEDED,
                        null,
                        ExecutionStatus.SUCCEEDED,
                        f.clock.instant(),
                        5,
                        null,
                        null,
                        null,
                        List.of())),
                "paused-worker")
            .applied();

    assertThat(applied).isEmpty();
    assertThat(f.find(running).status()).isEqualTo(JobState.PENDING);
    assertThat(f.stores.queries().executions(running.namespace(), running.id()))
        .singleElement()
        .extracting(Execution::status)
        .isEqualTo(ExecutionStatus.LOST);
  }

  @Test
  void theLastAttemptLostEndsFailed() {
    Job running = claimed(aJob().runAt(f.clock.instant()).maxAttempts(1).build(), "dead-worker");
    f.clock.advance(Duration.ofMinutes(2));

    assertThat(rescuer.runOnce()).isEqualTo(1);

    Job after = f.find(running);
    assertThat(after.status()).isEqualTo(JobState.FAILED);
    assertThat(after.finishedAt()).isEqualTo(f.clock.instant());
    assertThat(f.queued(after)).isFalse();
  }

  @Test
  void anAttemptWhoseLeaseIsAliveIsLeftAlone() {
    Job running = claimed(due(), "slow-db-worker");
    f.stores.redlock().acquire(List.of(running.id()), "slow-db-worker", Duration.ofMinutes(5));
    f.clock.advance(Duration.ofMinutes(2));

    assertThat(rescuer.runOnce()).isZero();
    assertThat(f.find(running).status()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void aPassPagesPastStaleAttemptsWhoseLeaseIsStillHeld() {
    List<Job> leased = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      leased.add(claimed(due(), "slow-worker"));
    }
    f.stores
        .redlock()
        .acquire(leased.stream().map(Job::id).toList(), "slow-worker", Duration.ofMinutes(5));
    f.clock.advance(Duration.ofMillis(1));
    Job lost = claimed(due(), "dead-worker");
    f.clock.advance(Duration.ofSeconds(61));

    // Pages of 2: the first two pages hold only leased attempts, the lost one comes third.
    f.settings.rescuePage = 2;
    Rescuer paging = f.rescuer(new Random(1));
    assertThat(paging.runOnce()).isEqualTo(1);

    assertThat(f.find(lost).status()).isEqualTo(JobState.PENDING);
    for (Job job : leased) {
      assertThat(f.find(job).status()).isEqualTo(JobState.RUNNING);
    }
  }

  @Test
  void aPassStopsAtMaxPerPass() {
    for (int i = 0; i < 5; i++) {
      claimed(due(), "dead-worker");
    }
    f.clock.advance(Duration.ofSeconds(61));
    f.settings.maxPerPass = 3;
    f.settings.rescuePage = 2;

    assertThat(f.rescuer(new Random(1)).runOnce()).isEqualTo(3);
    assertThat(f.rescuer(new Random(1)).runOnce()).isEqualTo(2);
  }

  @Test
  void aHeartbeatThatLandsBeforeTheRescueWins() {
    Job running = claimed(due(), "late-worker");
    f.clock.advance(Duration.ofMinutes(2));
    // The reaper read the attempt as stale; then the worker reported in before the update ran.
    f.stores
        .transitions()
        .heartbeat(List.of(new io.punctual.store.JobTransitions.Attempt(running.id(), 1)));

    Set<UUID> rescued =
        f.stores
            .transitions()
            .rescue(
                List.of(
                    new io.punctual.store.JobTransitions.Rescue(
                        running.id(), 1, JobState.PENDING, f.clock.instant(), "lost")),
                f.clock.instant().minus(f.settings.rescueAfter))
            .applied();

    assertThat(rescued).isEmpty();
    assertThat(f.find(running).status()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void racingReapersRescueEachAttemptOnce() throws Exception {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      jobs.add(due());
    }
    List<UUID> ids = f.store(jobs).stream().map(Job::id).toList();
    f.stores.transitions().claim(ids, "dead-worker");
    f.clock.advance(Duration.ofMinutes(2));

    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Callable<Integer>> reapers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Rescuer r = f.rescuer(new Random(i));
      reapers.add(r::runOnce);
    }
    int total = 0;
    for (Future<Integer> n : pool.invokeAll(reapers)) {
      total += n.get();
    }
    pool.shutdown();

    assertThat(total).isEqualTo(300);
    Integer lostRows =
        f.stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT count(*) FROM job_executions WHERE status = 'LOST'")
                        .mapTo(Integer.class)
                        .one());
    assertThat(lostRows).isEqualTo(300);
  }

  @Test
  void aPausedWorkersOpenTransactionHoldsUpTheRescueOnlyUntilPostgresEndsIt() throws Exception {
    Job running = claimed(due(), "paused-worker");
    PostgresSettings paused = new PostgresSettings(f.postgres.url, f.postgres.user, "");
    paused.password = f.postgres.password;
    paused.idleInTransactionTimeout = Duration.ofSeconds(1);
    ExecutorService reaper = Executors.newSingleThreadExecutor();
    try (Database zombie = Database.connect(paused, "paused-worker");
        Handle h = zombie.jdbi().open()) {
      // The worker was frozen (GC, SIGSTOP) inside a transaction that touched its job's row.
      h.begin();
      h.createUpdate("UPDATE jobs SET heartbeat_at = heartbeat_at WHERE id = :id")
          .bind("id", running.id())
          .execute();
      f.clock.advance(Duration.ofSeconds(61));

      // The rescue waits for that row lock until PostgreSQL ends the idle session, then goes on.
      Future<Integer> rescued = reaper.submit(rescuer::runOnce);
      assertThat(rescued.get(30, TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(f.find(running).status()).isEqualTo(JobState.PENDING);
      assertThatThrownBy(h::commit).as("the frozen worker's session was ended").isNotNull();
    } finally {
      reaper.shutdownNow();
    }
  }
}
