package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.Stores;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.embedded.EmbeddedPostgresServer;
import io.punctual.common.embedded.EmbeddedRedisServer;
import io.punctual.common.job.NewJob;
import io.punctual.common.store.JobStore;
import io.punctual.common.store.JobStore.QueueEntry;
import io.punctual.common.store.Migrations;
import io.punctual.worker.Worker;
import io.punctual.worker.WorkerSettings;
import io.punctual.worker.handler.JobHandlers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Drains N pre-stored no-op jobs with Punctual (one worker, full execution history) and with
 * db-scheduler (lock-and-fetch, 20 threads) on the same embedded PostgreSQL 18 with fsync and
 * synchronous_commit on, in the same run, and prints executions per second and their ratio.
 *
 * <p>Usage: {@code java -cp ... io.punctual.bench.ThroughputBenchmark [jobs] [rounds]}. A warm-up
 * round on a fifth of the jobs comes first and is not counted.
 */
public final class ThroughputBenchmark {
  private ThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    boolean pgStats = Boolean.getBoolean("bench.pgStats");
    try (EmbeddedPostgresServer pg =
            EmbeddedPostgresServer.start(
                null,
                true,
                pgStats ? Map.of("shared_preload_libraries", "pg_stat_statements") : Map.of());
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      pg.createDatabaseIfMissing("dbscheduler");
      PostgresSettings punctualDb = new PostgresSettings(pg.jdbcUrl("punctual"), "postgres", "");
      String settings = BenchSupport.describe(BenchSupport.postgresSettings(punctualDb.url));
      System.out.printf(
          "%s, %d cores, JDK %s, %d jobs per run, %d rounds%n",
          settings, Runtime.getRuntime().availableProcessors(), Runtime.version(), jobs, rounds);
      // Round 0 warms both up (class loading, JIT) on a fifth of the jobs and is not counted:
      // on 2 cores the JIT compiler alone takes a core for the first seconds.
      List<double[]> results = new ArrayList<>();
      for (int round = 0; round <= rounds; round++) {
        int n = round == 0 ? Math.max(1_000, jobs / 5) : jobs;
        double punctual = punctual(punctualDb, redis.url(), n, round);
        double peer =
            Boolean.getBoolean("bench.skipPeer")
                ? Double.NaN
                : dbScheduler(pg.jdbcUrl("dbscheduler"), n, round);
        if (round > 0) {
          results.add(new double[] {punctual, peer});
        }
        if (pgStats) {
          printTopStatements(pg.jdbcUrl("punctual"));
        }
        System.out.printf(
            Locale.ROOT,
            "%s: punctual %.0f/s, db-scheduler %.0f/s, ratio %.2f%n",
            round == 0 ? "warm-up (not counted)" : "round " + round,
            punctual,
            peer,
            punctual / peer);
      }
      double best = 0;
      double bestPeer = 0;
      for (double[] r : results) {
        best = Math.max(best, r[0]);
        bestPeer = Math.max(bestPeer, r[1]);
      }
      System.out.printf(
          Locale.ROOT,
          "best: punctual %.0f/s, db-scheduler %.0f/s, ratio %.2f%n",
          best,
          bestPeer,
          best / bestPeer);
    }
  }

  /**
   * With {@code -Dbench.pgStats=true}: the statements that took the most server time in the round
   * just run (pg_stat_statements), then resets the statistics.
   */
  private static void printTopStatements(String url) throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(url, 1);
        Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      try (var rs =
          s.executeQuery(
              "SELECT d.datname, calls, rows, round(total_exec_time::numeric, 1),"
                  + " round((total_exec_time / greatest(rows, 1) * 1000)::numeric, 1),"
                  + " regexp_replace(left(query, 80), '\\s+', ' ', 'g')"
                  + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                  + " ORDER BY total_exec_time DESC LIMIT 12")) {
        System.out.println("  top statements (database, calls, rows, total ms, us/row, query):");
        while (rs.next()) {
          System.out.printf(
              "    %-11s %6d %7d %8s %7s  %s%n",
              rs.getString(1),
              rs.getLong(2),
              rs.getLong(3),
              rs.getString(4),
              rs.getString(5),
              rs.getString(6));
        }
      }
      s.execute("SELECT pg_stat_statements_reset()");
    }
  }

  private static double punctual(PostgresSettings db, String redisUrl, int jobs, int round)
      throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(db.url, 4)) {
      Migrations.migrate(ds);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("TRUNCATE jobs, job_executions, idempotency_keys");
      }
    }
    // One key prefix for all rounds: the promoter's cursor survives from the warm-up, as in a
    // system that has been running (a fresh one rebuilds the queue from PostgreSQL once).
    RedisSettings redisSettings = new RedisSettings(redisUrl, "bench");
    try (Stores stores =
        new Stores(db, redisSettings, new QueueSettings(), Clock.systemUTC(), "bench")) {
      stores.partitions.ensureAhead();
      Instant now = Instant.now();
      List<NewJob> batch = new ArrayList<>(1_000);
      for (int i = 0; i < jobs; i++) {
        batch.add(BenchSupport.noop(now, List.of()));
        if (batch.size() == 1_000 || i == jobs - 1) {
          List<QueueEntry> entries = new ArrayList<>(batch.size());
          for (JobStore.Submitted s : stores.jobs.submit(batch)) {
            entries.add(
                new QueueEntry(
                    s.job().id(), s.job().namespace(), s.job().priority(), s.job().runAt()));
          }
          stores.queue.enqueue(entries);
          batch.clear();
        }
      }
      WorkerSettings settings = new WorkerSettings();
      if (System.getProperty("bench.concurrency") != null) {
        settings.concurrency = Integer.getInteger("bench.concurrency");
        settings.claimBatchSize = Integer.getInteger("bench.batch", settings.claimBatchSize);
      }
      MetricRegistry metrics = new MetricRegistry();
      long started = System.nanoTime();
      try (Worker worker =
          new Worker(stores, settings, JobHandlers.withBuiltIns(settings), metrics)) {
        worker.start();
        // The meter counts results committed to PostgreSQL; polling it costs the database nothing.
        var succeeded = metrics.meter("punctual.worker.succeeded");
        BenchSupport.waitFor(() -> succeeded.getCount() >= jobs, Duration.ofMinutes(10));
      }
      long elapsed = System.nanoTime() - started;
      verify(stores, jobs);
      var batches = metrics.histogram("punctual.worker.claimBatch").getSnapshot();
      System.out.printf(
          Locale.ROOT,
          "  punctual claim batches: mean %.1f, median %.0f, max %d%n",
          batches.getMean(),
          batches.getMedian(),
          batches.getMax());
      return jobs / (elapsed / 1e9);
    }
  }

  /** Every job SUCCEEDED exactly once, with one execution row each: a fast wrong run is no run. */
  private static void verify(Stores stores, int jobs) {
    long[] counts =
        stores
            .database
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT (SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'),"
                                + " (SELECT count(*) FROM job_executions WHERE status = 'SUCCEEDED')")
                        .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2)})
                        .one());
    if (counts[0] != jobs || counts[1] != jobs) {
      throw new IllegalStateException(
          "expected "
              + jobs
              + " succeeded jobs and executions, found "
              + counts[0]
              + " and "
              + counts[1]);
    }
  }

  private static double dbScheduler(String url, int jobs, int round) throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(url, 25)) {
      BenchSupport.createDbSchedulerTable(ds);
      try (Connection c = ds.getConnection();
          PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked,"
                      + " version, priority) VALUES ('noop', ?, now(), false, 1, 0)")) {
        c.setAutoCommit(false);
        for (int i = 0; i < jobs; i++) {
          insert.setString(1, "r" + round + "-" + i);
          insert.addBatch();
          if (i % 1_000 == 999) {
            insert.executeBatch();
          }
        }
        insert.executeBatch();
        c.commit();
      }
      LongAdder done = new LongAdder();
      OneTimeTask<Void> task = Tasks.oneTime("noop").execute((instance, ctx) -> done.increment());
      Scheduler scheduler =
          Scheduler.create(ds, task)
              .threads(20)
              .pollUsingLockAndFetch(0.5, 1.0)
              .pollingInterval(Duration.ofMillis(100))
              .registerShutdownHook()
              .build();
      long started = System.nanoTime();
      scheduler.start();
      BenchSupport.waitFor(() -> done.sum() >= jobs, Duration.ofMinutes(10));
      long elapsed = System.nanoTime() - started;
      scheduler.stop();
      return jobs / (elapsed / 1e9);
    }
  }
}
