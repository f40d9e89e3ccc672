package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.Progress;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.LogReport;
import io.punctual.store.AttemptOutputs.ProgressReport;
import io.punctual.store.WorkflowStore;
import io.punctual.store.registry.WorkerRegistry.Registration;
import io.punctual.store.testing.MigrationScript;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PartitionJanitorIT {
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
  private final ReaperFixture f = new ReaperFixture();
  private final Instant now = f.clock.instant();

  @AfterEach
  void close() {
    f.close();
  }

  /** Submits a job as if it were {@code daysAgo} days ago (its partition is that day's). */
  private Job jobFrom(int daysAgo) {
    return jobAt(now.minus(Duration.ofDays(daysAgo)));
  }

  /** Submits a job as if it were {@code at}. */
  private Job jobAt(Instant at) {
    f.clock.set(at);
    Job job = f.store(List.of(aJob().runAt(f.clock.instant()).build())).get(0);
    f.clock.set(now);
    return job;
  }

  /**
   * 01:00 UTC of the day {@code daysAgo} days ago: the evening before in the tests' JVM zone
   * (America/Sao_Paulo, which PostgreSQL sessions take from it), so a day counted from midnight in
   * the session's zone rather than UTC misses it.
   */
  private Instant earlyUtcHourOf(int daysAgo) {
    return LocalDate.ofInstant(now.minus(Duration.ofDays(daysAgo)), ZoneOffset.UTC)
        .atStartOfDay(ZoneOffset.UTC)
        .plusHours(1)
        .toInstant();
  }

  private void writeOutputs(AttemptOutputs outputs, Job job) {
    outputs.write(
        List.of(new ProgressReport(job.id(), 1, "default", Progress.percent(10), now)),
        List.of(new LogReport(job.id(), 1, "default", 1, "a line", now)));
  }

  private String day(int daysAgo) {
    return LocalDate.ofInstant(now.minus(Duration.ofDays(daysAgo)), ZoneOffset.UTC).format(DAY);
  }

  private boolean exists(String table) {
    return f.stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT to_regclass(:t) IS NOT NULL")
                    .bind("t", table)
                    .mapTo(Boolean.class)
                    .one());
  }

  @Test
  void aDayDroppedByAnotherProcessIsCreatedAgainWhenAJobGoesThere() {
    Job old = jobFrom(100);
    f.stores.transitions().cancel("default", old.id());
    // Another reaper (its own process, its own cache of known days) drops the day.
    try (Stores other =
        new Stores(f.postgres, TestRedis.newRedis(), new QueueSettings(), f.clock, "other")) {
      f.janitor(other).runOnce();
    }
    assertThat(exists("jobs_p" + day(100))).isFalse();

    // This process still remembers the day as existing: the insert fails, the day comes back.
    Job again = jobFrom(100);

    assertThat(exists("jobs_p" + day(100))).isTrue();
    assertThat(f.find(again).status()).isEqualTo(JobState.PENDING);
  }

  private long sessionsWaitingForALock() {
    return f.stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND wait_event_type = 'Lock'")
                    .mapTo(Long.class)
                    .one());
  }

  @Test
  void aWriteInFlightIntoADayBeingDroppedKeepsTheDay() throws Exception {
    Job old = jobFrom(100);
    f.stores.transitions().cancel("default", old.id());
    Instant at = now.minus(Duration.ofDays(100));
    UUID late = JobId.forScheduledTime(at);
    ExecutorService janitor = Executors.newSingleThreadExecutor();
    try (Handle h = f.stores.database().jdbi().open()) {
      h.begin();
      h.createUpdate(
              "INSERT INTO jobs (id, scheduled_at, type, run_at, max_attempts, backoff,"
                  + " created_at, updated_at) VALUES (:id, :at, 'noop', :at, 1, '{}', :at, :at)")
          .bind("id", late)
          .bind("at", at)
          .execute();
      Future<PartitionJanitor.Upkeep> upkeep = janitor.submit(() -> f.janitor().runOnce());
      // The janitor reaches the day and waits for the write's lock.
      await().atMost(Duration.ofSeconds(10)).until(() -> sessionsWaitingForALock() > 0);
      assertThat(upkeep).as("the drop waits for the write to commit").isNotDone();
      h.commit();

      assertThat(upkeep.get(30, TimeUnit.SECONDS).partitionsKept())
          .containsExactly("jobs_p" + day(100));
    } finally {
      janitor.shutdownNow();
    }
    assertThat(exists("jobs_p" + day(100))).isTrue();
    long rows =
        f.stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT count(*) FROM jobs WHERE id = :id")
                        .bind("id", late)
                        .mapTo(Long.class)
                        .one());
    assertThat(rows).as("the job written while the day was being dropped").isEqualTo(1);
  }

  private long outputRows(UUID jobId) {
    return f.stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT (SELECT count(*) FROM job_logs WHERE job_id = :id)"
                            + " + (SELECT count(*) FROM job_progress WHERE job_id = :id)")
                    .bind("id", jobId)
                    .mapTo(Long.class)
                    .one());
  }

  @Test
  void progressAndLogLinesGoWithTheirDaysExecutions() {
    f.settings.executionRetention = Duration.ofDays(30);
    f.settings.jobRetention = Duration.ofDays(90);
    Job old = jobFrom(40);
    Job oldEarly = jobAt(earlyUtcHourOf(40));
    Job recent = jobFrom(10);
    Job recentEarly = jobAt(earlyUtcHourOf(10));
    AttemptOutputs outputs = new AttemptOutputs(f.stores.database().jdbi());
    for (Job job : List.of(old, oldEarly, recent, recentEarly)) {
      f.stores.transitions().cancel("default", job.id());
      writeOutputs(outputs, job);
    }
    assertThat(outputRows(old.id())).isEqualTo(2);

    f.janitor().runOnce();

    assertThat(exists("job_executions_p" + day(40))).isFalse();
    assertThat(outputRows(old.id())).isZero();
    assertThat(outputRows(oldEarly.id())).as("the dropped day's first UTC hours").isZero();
    assertThat(outputRows(recent.id())).isEqualTo(2);
    assertThat(outputRows(recentEarly.id())).as("a kept day's first UTC hours").isEqualTo(2);
  }

  /**
   * V37 deletes the progress and log lines an earlier retention pass left before the oldest day
   * that still has execution history, and nothing of a day that has it.
   */
  @Test
  void v37DeletesTheLinesLeftBeforeTheOldestDayWithHistory() throws Exception {
    f.settings.executionRetention = Duration.ofDays(30);
    f.settings.jobRetention = Duration.ofDays(90);
    Job old = jobFrom(40);
    Job recent = jobFrom(10);
    f.stores.transitions().cancel("default", old.id());
    f.janitor().runOnce();
    assertThat(exists("job_executions_p" + day(40))).isFalse();
    AttemptOutputs outputs = new AttemptOutputs(f.stores.database().jdbi());
    writeOutputs(outputs, old); // as a pass off UTC left them: their day is gone
    writeOutputs(outputs, recent);

    MigrationScript.run(f.stores.database().jdbi(), "V37__outputs_left_by_retention.sql");

    assertThat(outputRows(old.id())).isZero();
    assertThat(outputRows(recent.id())).isEqualTo(2);
  }

  @Test
  void dropsDaysPastRetentionButNeverOneHoldingAJobNotFinal() {
    f.settings.executionRetention = Duration.ofDays(30);
    f.settings.jobRetention = Duration.ofDays(90);
    Job finalOld = jobFrom(100);
    f.stores.transitions().cancel("default", finalOld.id());
    Job pendingOld = jobFrom(95);
    Job finalMiddle = jobFrom(40);
    f.stores.transitions().cancel("default", finalMiddle.id());
    Job recent = jobFrom(5);

    PartitionJanitor.Upkeep upkeep = f.janitor().runOnce();

    // 100 days: past both retentions, all final -> both tables dropped
    assertThat(exists("jobs_p" + day(100))).isFalse();
    assertThat(exists("job_executions_p" + day(100))).isFalse();
    // 95 days: past both, but a pending job lives there -> kept whole
    assertThat(exists("jobs_p" + day(95))).isTrue();
    assertThat(exists("job_executions_p" + day(95))).isTrue();
    assertThat(upkeep.partitionsKept()).containsExactly("jobs_p" + day(95));
    // 40 days: history past its 30 days, jobs not past their 90
    assertThat(exists("jobs_p" + day(40))).isTrue();
    assertThat(exists("job_executions_p" + day(40))).isFalse();
    // 5 days: untouched
    assertThat(exists("jobs_p" + day(5))).isTrue();
    assertThat(exists("job_executions_p" + day(5))).isTrue();
    assertThat(upkeep.partitionsDropped())
        .containsExactlyInAnyOrder(
            "jobs_p" + day(100), "job_executions_p" + day(100), "job_executions_p" + day(40));
    assertThat(f.stores.queries().find("default", pendingOld.id())).isPresent();
    assertThat(f.stores.queries().find("default", finalMiddle.id())).isPresent();
    assertThat(f.stores.queries().find("default", recent.id())).isPresent();

    PartitionJanitor.Upkeep again = f.janitor().runOnce();
    assertThat(again.partitionsDropped()).as("idempotent").isEmpty();
  }

  @Test
  void forgetsIdempotencyKeysOlderThanTheJobsKept() {
    f.clock.set(now.minus(Duration.ofDays(120)));
    f.store(List.of(aJob().runAt(f.clock.instant()).idempotencyKey("old", "h").build()));
    f.clock.set(now);
    f.store(List.of(aJob().runAt(now).idempotencyKey("new", "h").build()));

    PartitionJanitor.Upkeep upkeep = f.janitor().runOnce();

    assertThat(upkeep.keysForgotten()).isEqualTo(1);
    List<String> keys =
        f.stores
            .database()
            .jdbi()
            .withHandle(
                h -> h.createQuery("SELECT key FROM idempotency_keys").mapTo(String.class).list());
    assertThat(keys).containsExactly("new");
  }

  @Test
  void prunesWorkersGoneLongerThanTheirRetention() {
    f.clock.set(now.minus(Duration.ofDays(2)));
    f.stores
        .workers()
        .register(new Registration("gone", "h", 1, List.of("default"), 4, Duration.ofSeconds(10)));
    f.clock.set(now);
    f.stores
        .workers()
        .register(new Registration("alive", "h", 2, List.of("default"), 4, Duration.ofSeconds(10)));

    PartitionJanitor.Upkeep upkeep = f.janitor().runOnce();

    assertThat(upkeep.workersPruned()).isEqualTo(1);
    assertThat(f.stores.workers().list("default", 10))
        .extracting(w -> w.id())
        .containsExactly("alive");
  }

  @Test
  void forgetsTheGraphsOfDaysPastRetentionButNotTheEdgesOfAJobStillWaiting() {
    f.settings.executionRetention = Duration.ofDays(30);
    f.settings.jobRetention = Duration.ofDays(90);
    f.clock.set(now.minus(Duration.ofDays(100)));
    var old =
        f.stores
            .workflows()
            .create(
                "default",
                List.of(
                    new WorkflowStore.NewStep("a", aJob().runAt(f.clock.instant()).build()),
                    new WorkflowStore.NewStep(
                        "b",
                        aJob()
                            .runAt(f.clock.instant())
                            .waitsFor(Upstream.inBatch(0, RunCondition.ON_SUCCESS))
                            .build())),
                null,
                null);
    f.stores.workflows().cancel("default", old.workflow().id());
    f.clock.set(now.minus(Duration.ofDays(95)));
    List<Job> waiting =
        f.store(
            List.of(
                aJob().runAt(f.clock.instant()).build(),
                aJob()
                    .runAt(f.clock.instant())
                    .waitsFor(Upstream.inBatch(0, RunCondition.ALWAYS))
                    .build()));
    f.clock.set(now);

    PartitionJanitor.Upkeep upkeep = f.janitor().runOnce();

    assertThat(upkeep.workflowsForgotten()).isEqualTo(1);
    assertThat(upkeep.edgesForgotten()).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM workflows")).isZero();
    assertThat(count("SELECT count(*) FROM workflow_steps")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM job_dependencies WHERE job_id = '"
                    + waiting.get(1).id()
                    + "'"))
        .as("its day is kept, and so is what it waits for")
        .isEqualTo(1);
  }

  private long count(String sql) {
    return f.stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }
}
