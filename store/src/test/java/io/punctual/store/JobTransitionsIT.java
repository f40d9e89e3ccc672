package io.punctual.store;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.store.JobTransitions.CancelResult;
import io.punctual.store.testing.Completions;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JobTransitionsIT {
  private final TestClock clock = new TestClock(Instant.now());
  private final StoreStack stack = new StoreStack(clock);
  private final JobSubmissions submissions = stack.submissions;
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void submitStoresPendingJobWithIdCarryingScheduledTime() {
    Instant runAt = clock.instant().plusSeconds(3600);
    Job job = submissions.submit(List.of(aJob().runAt(runAt).tags("a", "b").build())).get(0).job();

    assertThat(job.status()).isEqualTo(JobState.PENDING);
    assertThat(job.attempt()).isZero();
    assertThat(job.scheduledAt())
        .isEqualTo(runAt.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    assertThat(job.tags()).containsExactly("a", "b");
    assertThat(queries.find("default", job.id())).contains(job);
    assertThat(queries.find("other", job.id())).isEmpty();
  }

  /**
   * The transaction of a claim, heartbeat or finish plans without nested loops, sequential scans or
   * JIT, and only that transaction: before PostgreSQL 18 the disabled nested loop of claim.sql
   * priced its plan past the JIT thresholds, and a server with LLVM compiled it at every claim
   * (docs/supported-versions.md, "Slow claims on PostgreSQL 15").
   */
  @Test
  void keyLookupTransactionsPlanWithoutNestedLoopsSequentialScansOrJit() {
    String show =
        "SELECT current_setting('enable_nestloop') || ' ' || current_setting('enable_seqscan')"
            + " || ' ' || current_setting('jit')";
    String outside =
        stack.database.jdbi().withHandle(h -> h.createQuery(show).mapTo(String.class).one());

    String inside =
        JobTransitions.byKeys(
            stack.database.jdbi(), h -> h.createQuery(show).mapTo(String.class).one());

    String after =
        stack.database.jdbi().withHandle(h -> h.createQuery(show).mapTo(String.class).one());

    assertThat(inside).isEqualTo("off off off");
    assertThat(after).isEqualTo(outside);
  }

  @Test
  void claimBumpsAttemptAndOpensExecutionOnlyOnce() {
    Job job = submissions.submit(List.of(aJob().runAt(clock.instant()).build())).get(0).job();

    List<Job> first = transitions.claim(List.of(job.id()), "w1");
    List<Job> second = transitions.claim(List.of(job.id()), "w2");

    assertThat(first)
        .singleElement()
        .satisfies(
            j -> {
              assertThat(j.status()).isEqualTo(JobState.RUNNING);
              assertThat(j.attempt()).isEqualTo(1);
              assertThat(j.workerId()).isEqualTo("w1");
            });
    assertThat(second).isEmpty();
    assertThat(queries.executions("default", job.id()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.status()).isEqualTo(ExecutionStatus.RUNNING);
              assertThat(e.workerId()).isEqualTo("w1");
            });
  }

  /**
   * A worker's claim of a namespace without limits, paused types or a running cap (claimPlain.sql):
   * the same guards and the same rows as the judging statement, and a cap set meanwhile is seen at
   * the next claim (its jobs then go through claim.sql, which refuses them without the cap's lock).
   */
  @Test
  void aClaimOfAPlainNamespaceFencesAndGuardsAsTheJudgingStatementDoes() {
    Instant now = clock.instant();
    List<UUID> due =
        submissions
            .submit(List.of(aJob().runAt(now).build(), aJob().runAt(now.minusSeconds(5)).build()))
            .stream()
            .map(s -> s.job().id())
            .toList();
    UUID later =
        submissions.submit(List.of(aJob().runAt(now.plusSeconds(60)).build())).get(0).job().id();
    List<UUID> batch = new java.util.ArrayList<>(due);
    batch.add(later);

    var outcome = transitions.claimJudged("default", batch, "w1", null);

    assertThat(outcome.refused()).isEmpty();
    assertThat(outcome.slots()).isEmpty();
    assertThat(outcome.claimed()).extracting(Job::id).containsExactlyInAnyOrderElementsOf(due);
    assertThat(outcome.claimed())
        .allSatisfy(
            j -> {
              assertThat(j.status()).isEqualTo(JobState.RUNNING);
              assertThat(j.attempt()).isEqualTo(1);
              assertThat(j.workerId()).isEqualTo("w1");
              // the later of run_at and the claim: the claim's now, stored as the submit's was
              // (the clock stands still), rounded to the microsecond by PostgreSQL
              assertThat(j.startedAt()).isEqualTo(j.createdAt());
              assertThat(j.heartbeatAt()).isEqualTo(j.createdAt());
            });
    assertThat(transitions.claimJudged("default", batch, "w2", null).claimed()).isEmpty();
    assertThat(queries.find("default", later).orElseThrow().status()).isEqualTo(JobState.PENDING);

    UUID capped = submissions.submit(List.of(aJob().runAt(now).build())).get(0).job().id();
    stack
        .database
        .jdbi()
        .useHandle(h -> h.execute("UPDATE namespaces SET max_running = 10 WHERE name = 'default'"));
    var refused = transitions.claimJudged("default", List.of(capped), "w1", null);
    assertThat(refused.claimed()).isEmpty();
    assertThat(refused.refused())
        .extracting(r -> r.reason().name())
        .containsExactly("NAMESPACE_FULL");
  }

  @Test
  void staleAttemptCannotOverwriteNewerResult() {
    Job job = submissions.submit(List.of(aJob().runAt(clock.instant()).build())).get(0).job();
    transitions.claim(List.of(job.id()), "w1");
    // attempt 1 fails and is retried; attempt 2 is claimed by another worker
    assertThat(transitions.finish(List.of(retry(job.id(), 1))).applied()).containsExactly(job.id());
    transitions.claim(List.of(job.id()), "w2");

    Set<UUID> staleAccepted = transitions.finish(List.of(success(job.id(), 1))).applied();
    Set<UUID> currentAccepted = transitions.finish(List.of(success(job.id(), 2))).applied();

    assertThat(staleAccepted).isEmpty();
    assertThat(currentAccepted).containsExactly(job.id());
    Job done = queries.find("default", job.id()).orElseThrow();
    assertThat(done.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(2);
    assertThat(done.finishedAt()).isNotNull();
  }

  @Test
  void idempotencyKeyReturnsExistingJobAndConflictsOnDifferentBody() {
    var first = submissions.submit(List.of(aJob().idempotencyKey("k1", "hash-a").build())).get(0);
    var again = submissions.submit(List.of(aJob().idempotencyKey("k1", "hash-a").build())).get(0);

    assertThat(first.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.job().id()).isEqualTo(first.job().id());
    assertThatThrownBy(
            () -> submissions.submit(List.of(aJob().idempotencyKey("k1", "hash-b").build())))
        .isInstanceOf(IdempotencyConflictException.class);
  }

  @Test
  void cancelPendingThenRefuseSecondCancel() {
    Job job =
        submissions
            .submit(List.of(aJob().runAt(clock.instant().plusSeconds(60)).build()))
            .get(0)
            .job();

    assertThat(transitions.cancel("default", job.id())).isInstanceOf(CancelResult.Cancelled.class);
    assertThat(transitions.cancel("default", job.id()))
        .isInstanceOf(CancelResult.AlreadyFinal.class);
    assertThat(transitions.cancel("default", UUID.randomUUID()))
        .isInstanceOf(CancelResult.NotFound.class);
    assertThat(transitions.claim(List.of(job.id()), "w1")).isEmpty();
  }

  @Test
  void heartbeatSkipsRowsLockedElsewhereInsteadOfWaitingAndStillCountsThemAlive() {
    List<Job> jobs =
        submissions
            .submit(
                List.of(
                    aJob().runAt(clock.instant()).build(), aJob().runAt(clock.instant()).build()))
            .stream()
            .map(JobSubmissions.Submitted::job)
            .toList();
    Job locked = jobs.get(0);
    Job free = jobs.get(1);
    transitions.claim(List.of(locked.id(), free.id()), "w1");
    Instant beatAt =
        clock.instant().plusSeconds(5).truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    clock.set(beatAt);
    try (org.jdbi.v3.core.Handle other = stack.database.jdbi().open()) {
      // Another transaction (as a batch of results being written would) holds one row locked.
      other.begin();
      other.execute("SELECT 1 FROM jobs WHERE id = ? FOR UPDATE", locked.id());

      Set<UUID> alive =
          assertTimeoutPreemptively(
              Duration.ofSeconds(5),
              () ->
                  transitions.heartbeat(
                      List.of(
                          new JobTransitions.Attempt(locked.id(), 1),
                          new JobTransitions.Attempt(free.id(), 1))));

      assertThat(alive).containsExactlyInAnyOrder(locked.id(), free.id());
      other.rollback();
    }
    assertThat(heartbeatAt(free)).isEqualTo(beatAt);
    assertThat(heartbeatAt(locked)).isBefore(beatAt);
  }

  private Instant heartbeatAt(Job job) {
    return stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT heartbeat_at FROM jobs WHERE id = :id")
                    .bind("id", job.id())
                    .mapTo(Instant.class)
                    .one());
  }

  @Test
  void heartbeatTellsWorkerItsAttemptWasCancelled() {
    Job job = submissions.submit(List.of(aJob().runAt(clock.instant()).build())).get(0).job();
    transitions.claim(List.of(job.id()), "w1");
    assertThat(transitions.heartbeat(List.of(new JobTransitions.Attempt(job.id(), 1))))
        .containsExactly(job.id());

    transitions.cancel("default", job.id());

    assertThat(transitions.heartbeat(List.of(new JobTransitions.Attempt(job.id(), 1)))).isEmpty();
    assertThat(transitions.finish(List.of(success(job.id(), 1))).applied()).isEmpty();
    assertThat(queries.find("default", job.id()).orElseThrow().status())
        .isEqualTo(JobState.CANCELLED);
  }

  @Test
  void lookupByIdTouchesOnePartition() {
    stack.partitions.ensureCovers(clock.instant().plus(Duration.ofDays(2)));
    Job job =
        submissions
            .submit(List.of(aJob().runAt(clock.instant().plus(Duration.ofDays(1))).build()))
            .get(0)
            .job();

    String plan =
        stack
            .database
            .jdbi()
            .withHandle(
                h ->
                    String.join(
                        "\n",
                        h.createQuery(
                                "EXPLAIN SELECT * FROM jobs WHERE id = :id AND scheduled_at = :s")
                            .bind("id", job.id())
                            .bind("s", job.scheduledAt())
                            .mapTo(String.class)
                            .list()));

    assertThat(plan)
        .contains(
            "jobs_p"
                + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd")
                    .format(job.scheduledAt().atZone(java.time.ZoneOffset.UTC)));
    assertThat(plan.split("on jobs_p", -1)).hasSize(2);
  }

  /**
   * With thousands of pending jobs in a partition that was never analyzed, the claim must still
   * probe the primary key once per job rather than read the partition's pending-state index (an
   * O(pending) plan that once made every claim of 150 jobs cost 7 ms at 30,000 pending).
   */
  @Test
  void claimProbesThePrimaryKeyEvenWithoutStatistics() throws Exception {
    List<UUID> ids = manyPending();
    String plan =
        planWithoutStatistics(
            "claim.sql",
            ids,
            q ->
                q.bindNull("cappedNamespace", java.sql.Types.VARCHAR)
                    .bind("nowMs", clock.instant().toEpochMilli()));

    assertThat(plan).contains("_pkey").doesNotContain("run_at_idx").doesNotContain("Seq Scan");
  }

  /**
   * The same for the plain claim of an unlimited namespace (claimPlain.sql) and its read
   * (peekPlain.sql), which check the namespace of each row they find: no index of {@code jobs} but
   * its primary key, though "namespace = x AND status = 'PENDING'" would let the planner read
   * jobs_pending_by_type (V3) and filter every pending job of the namespace (seen in a benchmark:
   * 23 ms for a batch of 512 among 50,000 pending, against 1 ms by key).
   */
  @Test
  void thePlainClaimAndItsReadProbeOnlyThePrimaryKeyEvenWithoutStatistics() throws Exception {
    List<UUID> ids = manyPending();
    for (String statement : List.of("claimPlain.sql", "peekPlain.sql")) {
      String plan = planWithoutStatistics(statement, ids, q -> q.bind("namespace", "default"));

      assertThat(jobIndexes(plan))
          .as(statement + "\n" + plan)
          .isNotEmpty()
          .allMatch(i -> i.endsWith("_pkey"));
      assertThat(plan).doesNotContain("Seq Scan");
    }
  }

  /**
   * An operator's rerun of failed jobs, among thousands of final jobs of its namespace in a
   * partition never analyzed, probes the primary key: its state check must not let the planner read
   * jobs_final_by_namespace (V6) through every final job of the namespace. It does not run after
   * keyLookupsOnly.sql (it is no worker's statement), so the plan is the planner's own.
   */
  @Test
  void aRerunProbesOnlyThePrimaryKeyEvenWithoutStatistics() throws Exception {
    List<UUID> ids = manyPending();
    stack
        .database
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate(
                        "UPDATE jobs SET status = 'FAILED', finished_at = now() WHERE id = ANY(:ids)")
                    .bind("ids", ids.toArray(UUID[]::new))
                    .execute());

    String plan = plan("rerun.sql", ids, q -> q.bind("namespace", "default"), false);

    assertThat(jobIndexes(plan)).as(plan).isNotEmpty().allMatch(i -> i.endsWith("_pkey"));
    assertThat(plan).doesNotContain("Seq Scan");
  }

  /** 5,000 jobs due within a few milliseconds, in a partition never analyzed. */
  private List<UUID> manyPending() {
    List<NewJob> many = new java.util.ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      many.add(aJob().runAt(clock.instant().plusMillis(i % 3)).build());
    }
    return submissions.submit(many).stream().map(s -> s.job().id()).toList();
  }

  /**
   * The plan of one of JobTransitions' statements over the first 256 of {@code ids} (worker "w",
   * now; {@code binds} adds what else it takes), in a transaction run as byKeys runs it.
   */
  private String planWithoutStatistics(
      String statement,
      List<UUID> ids,
      java.util.function.UnaryOperator<org.jdbi.v3.core.statement.Query> binds)
      throws java.io.IOException {
    return plan(statement, ids, binds, true);
  }

  /** {@link #planWithoutStatistics}, after keyLookupsOnly.sql only if {@code byKeys}. */
  private String plan(
      String statement,
      List<UUID> ids,
      java.util.function.UnaryOperator<org.jdbi.v3.core.statement.Query> binds,
      boolean byKeys)
      throws java.io.IOException {
    String sql = resource(statement);
    String keyLookupsOnly = resource("keyLookupsOnly.sql");
    return stack
        .database
        .jdbi()
        .inTransaction(
            h -> {
              if (byKeys) {
                h.createQuery(keyLookupsOnly).mapTo(String.class).one();
              }
              var query =
                  h.createQuery("EXPLAIN " + sql)
                      .bind("ids", ids.subList(0, 256).toArray(UUID[]::new))
                      .bind("minScheduled", JobId.scheduledAt(ids.get(0)))
                      .bind("maxScheduled", JobId.scheduledAt(ids.get(ids.size() - 1)))
                      .bind("workerId", "w")
                      .bind("now", clock.instant());
              List<String> lines = binds.apply(query).mapTo(String.class).list();
              h.rollback();
              return String.join("\n", lines);
            });
  }

  /** The indexes of jobs' partitions a plan reads. */
  private static List<String> jobIndexes(String plan) {
    return java.util.regex.Pattern.compile("jobs_p\\d+_\\w+")
        .matcher(plan)
        .results()
        .map(java.util.regex.MatchResult::group)
        .toList();
  }

  private static String resource(String name) throws java.io.IOException {
    try (var in = JobTransitions.class.getResourceAsStream("JobTransitions/" + name)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private Completion success(UUID id, int attempt) {
    return Completions.success(id, attempt, clock.instant());
  }

  private Completion retry(UUID id, int attempt) {
    return Completions.retry(id, attempt, clock.instant(), clock.instant());
  }
}
