package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.FreePorts;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.metrics.WorkerMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Writes whose commit had an unknown outcome, on a PostgreSQL of the test's own (embedded, on a
 * port it keeps across restarts): the worker's claims and results are committed while the worker is
 * told they failed, and no attempt may be left RUNNING without a holder for the reaper to find
 * LOST. A reaper runs beside it with a short {@code rescueAfter}, so an orphaned attempt would be
 * recorded LOST during the test.
 */
class UnknownCommitIT {
  private static final String DATABASE = "punctual";

  private final Path data = tempDirectory();
  private final int port = FreePorts.pick();
  private EmbeddedPostgresServer postgres = start();
  private final PostgresSettings settings = settings();
  private final Stores stores = stores();
  private final MetricRegistry metrics = new MetricRegistry();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    standby(""); // commits go through again, whatever the test left
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    stores.close();
    postgres.close();
    try (Stream<Path> files = Files.walk(data)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static Path tempDirectory() {
    try {
      return Files.createTempDirectory("punctual-unknown-commit");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Commits wait for synchronous replication when a standby is named (the first test's fault). */
  private EmbeddedPostgresServer start() {
    return EmbeddedPostgresServer.start(data, false, Map.of("synchronous_commit", "on"), port);
  }

  private PostgresSettings settings() {
    postgres.createDatabaseIfMissing(DATABASE);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(postgres.jdbcUrl(DATABASE));
    ds.setUser("postgres");
    Migrations.migrate(ds);
    PostgresSettings s = new PostgresSettings(postgres.jdbcUrl(DATABASE), "postgres", "");
    s.maxPoolSize = 8;
    s.connectionTimeout = Duration.ofSeconds(1);
    return s;
  }

  private Stores stores() {
    Stores s =
        new Stores(
            settings, TestRedis.newRedis(), new QueueSettings(), Clock.systemUTC(), "unknown-it");
    s.partitions().ensureAhead();
    return s;
  }

  private Worker startWorker(JobHandler handler, int concurrency, int claimBatch) {
    return startWorker(handler, concurrency, claimBatch, new WorkerSettings().claimWriteAfter);
  }

  /**
   * {@code claimWriteAfter}: PT0S writes every claim at once (a claim's commit is then what the
   * fault hits); the default reads plain claims, and the results' commits write them.
   */
  private Worker startWorker(
      JobHandler handler, int concurrency, int claimBatch, Duration claimWriteAfter) {
    WorkerSettings ws = WorkerHarness.settings();
    ws.claimWriteAfter = claimWriteAfter;
    ws.concurrency = concurrency;
    ws.claimBatchSize = claimBatch;
    ws.leaseTtl = Duration.ofSeconds(3);
    ws.shutdownGrace = Duration.ofSeconds(5);
    Worker worker = new Worker(stores, ws, new JobHandlers().register(handler), metrics);
    closing.add(worker);
    worker.start();
    return worker;
  }

  /** A reaper that rescues an attempt silent for 3 s without a lease: an orphan shows as LOST. */
  private void startReaper() {
    ReaperSettings rs = new ReaperSettings();
    rs.interval = Duration.ofMillis(500);
    rs.rescueAfter = Duration.ofSeconds(3);
    rs.reconcileAfter = Duration.ofSeconds(1);
    Reaper reaper = new Reaper(stores, rs, new MetricRegistry(), "reaper-unknown-it");
    closing.add(reaper);
    reaper.start();
  }

  private static JobHandler quick(long maxMillis) {
    return new JobHandler() {
      @Override
      public String type() {
        return "work";
      }

      @Override
      public JobResult handle(JobContext ctx) throws InterruptedException {
        Thread.sleep(ThreadLocalRandom.current().nextLong(maxMillis + 1));
        return JobResult.success();
      }
    };
  }

  private List<Job> submit(int n, Instant runAt) {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(aJob().type("work").maxAttempts(1).runAt(runAt).build());
    }
    List<Job> out = new ArrayList<>();
    stores.submissions().submit(jobs).forEach(s -> out.add(s.job()));
    // Into Redis at once, as the API's submit does.
    stores
        .queue()
        .enqueue(
            out.stream()
                .map(j -> new QueueEntry(j.id(), j.namespace(), j.priority(), j.runAt()))
                .toList());
    return out;
  }

  private Connection admin() throws SQLException {
    return DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", "");
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(DATABASE), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long countQuietly(String sql) {
    try {
      return count(sql);
    } catch (SQLException e) {
      return -1; // restarting
    }
  }

  private void standby(String names) throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("ALTER SYSTEM SET synchronous_standby_names = '" + names + "'");
      s.execute("SELECT pg_reload_conf()");
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              try (Connection c = admin();
                  Statement s = c.createStatement();
                  ResultSet rs = s.executeQuery("SHOW synchronous_standby_names")) {
                rs.next();
                return rs.getString(1).equals(names);
              }
            });
  }

  /** Terminates every backend whose commit waits for the standby: it committed, unanswered. */
  private void terminateWaitingForTheStandby() throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
    }
  }

  /** Backends whose commit waits for the standby and that wrote to a partition of jobs. */
  private long claimsWaitingForTheStandby() throws SQLException {
    return writersWaitingForTheStandby("jobs%");
  }

  /** Backends whose commit waits for the standby and that wrote to a table named so. */
  private long writersWaitingForTheStandby(String tables) throws SQLException {
    return count(
        "SELECT count(DISTINCT a.pid) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid"
            + " JOIN pg_class r ON r.oid = l.relation"
            + " WHERE a.wait_event = 'SyncRep' AND r.relname LIKE '"
            + tables
            + "' AND l.mode = 'RowExclusiveLock'");
  }

  /**
   * The fault, made certain: a claim's COMMIT is written by PostgreSQL and then the backend
   * is terminated before it answers (it waited for a synchronous standby that does not exist), so
   * the worker sees 57P01 "terminating connection due to administrator command" on a claim
   * PostgreSQL did commit. Every write waiting then meets the same fate (heartbeats, the registry,
   * results). The worker must read its claim back and hand the jobs back at once: they run (as
   * their attempt 2, their only attempt still available) and nothing is LOST.
   */
  @Test
  void aClaimCommittedWhileTheWorkerWasToldItFailedIsHandedBackAndRunsAtOnce() throws Exception {
    startReaper();
    List<Job> jobs = submit(6, Instant.now().plusSeconds(4));
    startWorker(quick(5), 8, 8, Duration.ZERO);
    // In Redis (the promoter's first pass) before any commit has to wait for the standby.
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> stores.queue().size("default", Priority.NORMAL) == jobs.size());
    standby("nobody");

    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> claimsWaitingForTheStandby() > 0);
    terminateWaitingForTheStandby();
    standby("");

    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'") == jobs.size());
    assertThat(count("SELECT count(*) FROM job_executions WHERE status = 'LOST'")).isZero();
    assertThat(count("SELECT count(*) FROM job_executions WHERE status = 'HANDED_BACK'"))
        .as("the committed claim's attempts, handed back")
        .isPositive();
    assertThat(
            count(
                "SELECT count(*) FROM jobs j WHERE j.max_attempts <> 1 + (SELECT count(*) FROM"
                    + " job_executions e WHERE e.job_id = j.id AND e.status = 'HANDED_BACK')"))
        .as("each handoff gave its attempt back, and only handoffs did")
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT job_id FROM job_executions WHERE status ="
                    + " 'SUCCEEDED' GROUP BY job_id HAVING count(*) = 1) s"))
        .isEqualTo(jobs.size());
    assertThat(metrics.meter(WorkerMetrics.PREFIX + "handoffs").getCount()).isPositive();
  }

  /**
   * The same fault on a batch of results: the finish commits, the worker is told it failed and
   * writes the batch again, which the fence now refuses. The read-back finds the first write
   * committed: the attempts are counted as succeeded, none as refused (a zombie write), and the
   * leases were kept until then.
   */
  @Test
  void resultsCommittedWhileTheWorkerWasToldTheyFailedAreNotCountedAsRefused() throws Exception {
    startReaper();
    CountDownLatch release = new CountDownLatch(1);
    JobHandler gated =
        new JobHandler() {
          @Override
          public String type() {
            return "work";
          }

          @Override
          public JobResult handle(JobContext ctx) throws InterruptedException {
            release.await();
            return JobResult.success();
          }
        };
    List<Job> jobs = submit(5, Instant.now());
    Worker worker = startWorker(gated, 8, 8);
    await().atMost(Duration.ofSeconds(10)).until(() -> worker.running() == jobs.size());
    standby("nobody");

    release.countDown();
    // Other writes wait for the standby too, holding their locks (a heartbeat holds the rows the
    // finish updates): they are cut off first, until the finish itself waits for the standby.
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (writersWaitingForTheStandby("job_executions%") > 0) {
                return true;
              }
              terminateWaitingForTheStandby();
              return false;
            });
    terminateWaitingForTheStandby();
    standby("");

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> metrics.meter(WorkerMetrics.PREFIX + "succeeded").getCount() == jobs.size());
    assertThat(count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'"))
        .isEqualTo(jobs.size());
    assertThat(count("SELECT count(*) FROM job_executions WHERE status <> 'SUCCEEDED'")).isZero();
    assertThat(metrics.meter(WorkerMetrics.PREFIX + "fenceRefused").getCount()).isZero();
    assertThat(metrics.meter(WorkerMetrics.PREFIX + "staleRefused").getCount()).isZero();
  }

  /**
   * The test: PostgreSQL restarted ({@code pg_ctl stop -m fast}, then started on the same
   * port) again and again while a worker claims small batches of short jobs. Every job ends
   * SUCCEEDED with one successful attempt, none is LOST, none is left RUNNING.
   */
  @Test
  void restartingPostgresInTheMiddleOfClaimsLeavesNoAttemptLostOrWaitingForARescue()
      throws Exception {
    startReaper();
    List<Job> jobs = submit(1_500, Instant.now());
    startWorker(quick(20), 16, 4);

    for (int i = 0; i < 8; i++) {
      Thread.sleep(ThreadLocalRandom.current().nextLong(300, 900));
      postgres.close();
      postgres = start();
    }

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                countQuietly("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'")
                    == jobs.size());
    assertThat(count("SELECT count(*) FROM job_executions WHERE status = 'LOST'")).isZero();
    assertThat(count("SELECT count(*) FROM jobs WHERE status <> 'SUCCEEDED'")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT job_id FROM job_executions WHERE status ="
                    + " 'SUCCEEDED' GROUP BY job_id HAVING count(*) = 1) s"))
        .isEqualTo(jobs.size());
    assertThat(
            count(
                "SELECT count(*) FROM jobs j WHERE j.max_attempts <> 1 + (SELECT count(*) FROM"
                    + " job_executions e WHERE e.job_id = j.id AND e.status = 'HANDED_BACK')"))
        .isZero();
  }
}
