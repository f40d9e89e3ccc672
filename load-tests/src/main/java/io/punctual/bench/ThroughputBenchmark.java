package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Drains N pre-stored no-op jobs with Punctual (one worker, full execution history) and with
 * db-scheduler (lock-and-fetch, 20 threads) on the same embedded PostgreSQL 18 with fsync and
 * synchronous_commit on, in the same run, and prints executions per second and their ratio.
 *
 * <p>Usage: {@code ThroughputBenchmark [--jobs N] [--rounds R] [--workers 1|2] [--skip-peer]
 * [--json FILE]}; defaults 50,000 jobs, 2 rounds, one {@code Worker} in this process. With {@code
 * --workers} the jobs are drained by that many {@code punctual worker} processes instead, started
 * once from the distribution jar and kept across rounds. A warm-up round on as many jobs comes
 * first and is not counted.
 *
 * <p>With {@code --lock-nodes K} (K of 2 to 5) each round also drains the jobs with the job leases
 * on K independent Redis nodes (Redlock, a majority per lease, the restart-delay check on) besides
 * the default single node (the queue's Redis), alternating which goes first, and prints their
 * ratio. The nodes are embedded redis-servers on this machine, so a lease's round trip is a
 * loopback one: the figure is the cost of the extra commands, not of a network.
 */
public final class ThroughputBenchmark {
  private ThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    int jobs = 50_000;
    int rounds = 2;
    int workers = 0;
    boolean skipPeer = Boolean.getBoolean("bench.skipPeer");
    boolean jobRunr = true;
    Path json = null;
    int lockNodes = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--workers" -> workers = Integer.parseInt(args[++i]);
        case "--skip-peer" -> skipPeer = true;
        case "--skip-jobrunr" -> jobRunr = false;
        case "--json" -> json = Path.of(args[++i]);
        case "--lock-nodes" -> lockNodes = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    jobRunr &= !skipPeer;
    if (lockNodes != 0 && (lockNodes < 2 || lockNodes > 5 || workers != 0)) {
      throw new IllegalArgumentException(
          "--lock-nodes must be 2 to 5, with the in-process worker (no --workers)");
    }
    if (workers < 0 || workers > 2) {
      throw new IllegalArgumentException("--workers must be 1 or 2 (absent: in-process)");
    }
    boolean pgStats = ServerStatistics.PG;
    ObjectNode out = BenchSupport.header("throughput");
    Map<String, String> pgSettings = new HashMap<>();
    if (pgStats) {
      pgSettings.put("shared_preload_libraries", "pg_stat_statements");
      pgSettings.put("pg_stat_statements.track_planning", "on");
    }
    FinishPlans plans = FinishPlans.ON ? FinishPlans.create() : null;
    if (plans != null) {
      pgSettings.putAll(plans.settings());
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true, pgSettings);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null);
        LockNodes locks = LockNodes.start(lockNodes)) {
      pg.createDatabaseIfMissing("punctual");
      pg.createDatabaseIfMissing("dbscheduler");
      pg.createDatabaseIfMissing("jobrunr");
      PostgresSettings punctualDb = new PostgresSettings(pg.jdbcUrl("punctual"), "postgres", "");
      Map<String, String> postgres = BenchSupport.postgresSettings(punctualDb.url);
      String mode =
          workers == 0
              ? "one in-process Worker"
              : workers
                  + " worker process(es), "
                  + PunctualProcesses.aotCache("worker")
                      .map(c -> "started with the AOT cache " + c)
                      .orElse("no AOT cache");
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s, %d jobs per run, %d rounds, %s%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          jobs,
          rounds,
          mode);
      Servers servers =
          new Servers(pg.port(), BenchSupport.redisPid(redis.url()), pg.jdbcUrl("postgres"));
      PunctualProcesses processes = null;
      if (workers > 0) {
        try (HikariDataSource ds = BenchSupport.dataSource(punctualDb.url, 2)) {
          Migrations.migrate(ds);
        }
        processes = new PunctualProcesses(punctualDb.url, redis.url());
        processes.startWorkers(workers);
      }
      double[] benchRss = {0, 0};
      try {
        // Round 0 warms every system up (class loading, JIT) on as many jobs as a round and is
        // not counted: on 2 cores the JIT compiler alone takes a core for the first seconds, and
        // after a fifth of the jobs round 1 still ran a third slower than round 2.
        ArrayNode roundsJson = out.putArray("rounds");
        double best = 0;
        double bestPeer = 0;
        double bestJobRunr = 0;
        for (int round = 0; round <= rounds; round++) {
          int n = jobs;
          boolean locksFirst = lockNodes > 0 && round % 2 == 1;
          Drain lockDrain =
              locksFirst ? punctual(punctualDb, redis.url(), locks.urls(), n, servers) : null;
          // The order alternates (db-scheduler first in odd rounds), and each drain starts on a
          // quiet server: neither side's drain is charged with the other's vacuum.
          boolean peerFirst = !skipPeer && round % 2 == 1;
          Drain peerDrain =
              peerFirst ? dbScheduler(pg.jdbcUrl("dbscheduler"), n, round, servers) : null;
          Drain punctualDrain =
              processes == null
                  ? punctual(punctualDb, redis.url(), List.of(), n, servers)
                  : punctualProcesses(punctualDb, redis.url(), n, processes, servers);
          if (lockNodes > 0 && !locksFirst) {
            lockDrain = punctual(punctualDb, redis.url(), locks.urls(), n, servers);
          }
          if (!skipPeer && !peerFirst) {
            peerDrain = dbScheduler(pg.jdbcUrl("dbscheduler"), n, round, servers);
          }
          double punctual = punctualDrain.perSecond();
          double peer = peerDrain == null ? Double.NaN : peerDrain.perSecond();
          double jr = jobRunr ? JobRunrPeer.throughput(pg.jdbcUrl("jobrunr"), n) : Double.NaN;
          if (processes != null) {
            processes.sampleRss();
          } else {
            double[] rss = BenchSupport.rssMb(ProcessHandle.current().pid());
            benchRss = new double[] {rss[0], Math.max(benchRss[1], rss[1])};
          }
          if (lockDrain != null) {
            double withLocks = lockDrain.perSecond();
            System.out.printf(
                Locale.ROOT,
                "  %d lock nodes: punctual %.0f/s (%s first), %.2f of one node%n",
                lockNodes,
                withLocks,
                locksFirst ? lockNodes + " nodes" : "one node",
                withLocks / punctual);
          }
          if (round > 0) {
            ObjectNode r = roundsJson.addObject();
            r.put("executionsPerSecond", Math.round(punctual));
            if (lockDrain != null) {
              r.put("lockNodes", lockNodes);
              r.put("lockNodesExecutionsPerSecond", Math.round(lockDrain.perSecond()));
              r.put("lockNodesRatio", Math.round(lockDrain.perSecond() / punctual * 100) / 100.0);
            }
            punctualDrain.putCpu(r.putObject("cpuMicrosPerJob"));
            if (!skipPeer) {
              r.put("peerExecutionsPerSecond", Math.round(peer));
              r.put("ratio", Math.round(punctual / peer * 100) / 100.0);
              peerDrain.putCpu(r.putObject("peerCpuMicrosPerJob"));
            }
            if (jobRunr) {
              r.put("jobRunrExecutionsPerSecond", Math.round(jr));
              r.put("jobRunrRatio", Math.round(punctual / jr * 100) / 100.0);
              bestJobRunr = Math.max(bestJobRunr, jr);
            }
            best = Math.max(best, punctual);
            bestPeer = Math.max(bestPeer, peer);
          }
          if (pgStats) {
            ServerStatistics.printStatements(pg.jdbcUrl("punctual"));
          }
          if (plans != null) {
            plans.print();
          }
          if (ServerStatistics.REDIS) {
            ServerStatistics.printCommands(redis.url(), jobs);
          }
          System.out.printf(
              Locale.ROOT,
              "%s: punctual %.0f/s%s%s%n",
              round == 0 ? "warm-up (not counted)" : "round " + round,
              punctual,
              peerPart(", db-scheduler", peer, punctual),
              peerPart("; JobRunr", jr, punctual));
          System.out.println(
              "  CPU per job: punctual "
                  + punctualDrain.cpuLine()
                  + (peerDrain == null ? "" : "; db-scheduler " + peerDrain.cpuLine()));
        }
        System.out.printf(
            Locale.ROOT,
            "best: punctual %.0f/s%s%s%n",
            best,
            peerPart(", db-scheduler", bestPeer, best),
            peerPart("; JobRunr", bestJobRunr, best));
        out.put("jobs", jobs);
        out.put("workers", workers == 0 ? "in-process" : Integer.toString(workers));
        if (workers > 0) {
          out.put("aotCache", PunctualProcesses.aotCache("worker").isPresent());
        }
        out.put("executionsPerSecond", Math.round(best));
        out.putNull("lagMs");
        out.putNull("submitPerSecond");
        if (!skipPeer) {
          ObjectNode p = out.putObject("peer");
          p.put("name", "db-scheduler 16.12.0 lock-and-fetch, 20 threads, 100 ms polling");
          p.put("executionsPerSecond", Math.round(bestPeer));
          out.put("ratio", Math.round(best / bestPeer * 100) / 100.0);
        }
        if (jobRunr) {
          ObjectNode p = out.putObject("jobRunr");
          p.put("name", "JobRunr 8.7.0, PostgresStorageProvider, default background job server");
          p.put("executionsPerSecond", Math.round(bestJobRunr));
          out.put("jobRunrRatio", Math.round(best / bestJobRunr * 100) / 100.0);
        }
      } finally {
        if (processes != null) {
          processes.close();
          out.set("rssMb", processes.rssJson());
          System.out.println(processes.rssLine());
        } else {
          ObjectNode rss = out.putObject("rssMb").putObject("benchmark-process");
          rss.put("peak", Math.round(benchRss[1]));
          rss.put("end", Math.round(benchRss[0]));
          rss.put("note", "in-process worker: this JVM also ran db-scheduler and the loader");
        }
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /**
   * One drain by an in-process worker; {@code leaseNodes}: the Redlock nodes (empty: the queue's
   * Redis), each marked as up for longer than the restart delay, as nodes long in service are.
   */
  private static Drain punctual(
      PostgresSettings db, String redisUrl, List<String> leaseNodes, int jobs, Servers servers)
      throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(db.url, 4)) {
      Migrations.migrate(ds);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("TRUNCATE jobs, job_executions, idempotency_keys");
      }
    }
    BenchSupport.payloadIndexIfAsked(db.url);
    // One key prefix for all rounds: the promoter's cursor survives from the warm-up, as in a
    // system that has been running (a fresh one rebuilds the queue from PostgreSQL once).
    RedisSettings redisSettings = new RedisSettings(redisUrl, "bench");
    redisSettings.leaseNodes = new ArrayList<>(leaseNodes);
    redisSettings.leaseNodeRestartDelay = new WorkerSettings().leaseTtl;
    LockNodes.agedBy(leaseNodes, "bench", redisSettings.leaseNodeRestartDelay);
    try (Stores stores =
        new Stores(db, redisSettings, new QueueSettings(), Clock.systemUTC(), "bench")) {
      stores.partitions().ensureAhead();
      if (Boolean.getBoolean("bench.hotClaims")) {
        hotClaims(stores);
      }
      Instant now = Instant.now();
      BenchSupport.storeInBatches(
          stores, jobs, i -> BenchSupport.noop(now, List.of()), stores.queue()::enqueue);
      WorkerSettings settings = new WorkerSettings();
      if (System.getProperty("bench.claimWriteAfter") != null) {
        // worker.claimWriteAfter other than the default (PT0S: claims written at once, as before
        // 2026-11-30); worker processes take -Dbench.processOpts=-Ddw.worker.claimWriteAfter=...
        settings.claimWriteAfter = Duration.parse(System.getProperty("bench.claimWriteAfter"));
      }
      if (System.getProperty("bench.concurrency") != null) {
        settings.concurrency = Integer.getInteger("bench.concurrency");
        settings.claimBatchSize = Integer.getInteger("bench.batch", settings.claimBatchSize);
      }
      MetricRegistry metrics = new MetricRegistry();
      servers.settle();
      Usage before = servers.usage(THIS_JVM);
      long started = System.nanoTime();
      long elapsed;
      Usage after;
      try (Worker worker =
          new Worker(stores, settings, BenchSupport.builtIns(stores, settings), metrics)) {
        worker.start();
        // The meter counts results committed to PostgreSQL; polling it costs the database nothing.
        var succeeded = metrics.meter("punctual.worker.succeeded");
        BenchSupport.waitFor(() -> succeeded.getCount() >= jobs, Duration.ofMinutes(10));
        // The clock stops at the last result, before the worker stops, as db-scheduler's does
        // before its scheduler stops.
        elapsed = System.nanoTime() - started;
        after = servers.usage(THIS_JVM);
      }
      verify(stores, jobs);
      var batches = metrics.histogram("punctual.worker.claimBatch").getSnapshot();
      var lease = metrics.timer("punctual.worker.claim.lease").getSnapshot();
      System.out.printf(
          Locale.ROOT,
          "  punctual (%s) claim batches: mean %.1f, median %.0f, max %d; leasing a batch: mean"
              + " %.2f ms, p99 %.2f ms%n",
          leaseNodes.isEmpty() ? "one lock node" : leaseNodes.size() + " lock nodes",
          batches.getMean(),
          batches.getMedian(),
          batches.getMax(),
          lease.getMean() / 1e6,
          lease.get99thPercentile() / 1e6);
      return Drain.of(jobs, elapsed / 1e9, before, after);
    }
  }

  /**
   * An experiment, not a configuration ({@code -Dbench.hotClaims=true}, in-process only): what a
   * drain would cost if a claim were a HOT update. Drops every index of {@code jobs} that names
   * {@code status} (the state indexes of V1, V3 and V6) and leaves a fifth of each page free, so
   * that no row version of the claim needs an index entry. The console's and reaper's queries lose
   * their indexes meanwhile; a later round's migration does not bring them back (drop the
   * database).
   */
  private static void hotClaims(Stores stores) {
    stores
        .database()
        .jdbi()
        .useHandle(
            h -> {
              for (String index :
                  List.of(
                      "jobs_pending_run_at",
                      "jobs_pending_by_type",
                      "jobs_failed",
                      "jobs_running_by_namespace",
                      "jobs_final_by_namespace")) {
                h.execute("DROP INDEX IF EXISTS " + index);
              }
              for (String partition :
                  h.createQuery(
                          "SELECT CAST(inhrelid AS regclass) FROM pg_inherits"
                              + " WHERE inhparent = CAST('jobs' AS regclass)")
                      .mapTo(String.class)
                      .list()) {
                h.execute("ALTER TABLE " + partition + " SET (fillfactor = 80)");
              }
            });
  }

  /**
   * One round against worker processes that are already running (and idle): N jobs due now are
   * stored in PostgreSQL, then handed to Redis in batches of 1,000 as the API would; the clock
   * starts at the first hand-over and stops at the last result written, as PostgreSQL records it
   * ({@code max(updated_at)} of the jobs). The workers' meters only say when to look.
   */
  private static Drain punctualProcesses(
      PostgresSettings db, String redisUrl, int jobs, PunctualProcesses processes, Servers servers)
      throws Exception {
    try (Stores stores =
        new Stores(
            db,
            new RedisSettings(redisUrl, "punctual"),
            new QueueSettings(),
            Clock.systemUTC(),
            "bench")) {
      try (Connection c = stores.database().dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("TRUNCATE jobs, job_executions, idempotency_keys");
      }
      stores.partitions().ensureAhead();
      Instant now = Instant.now();
      List<QueueEntry> entries = new ArrayList<>(jobs);
      BenchSupport.storeInBatches(
          stores, jobs, i -> BenchSupport.noop(now, List.of()), entries::addAll);
      List<PunctualProcesses.Role> workers = processes.workers();
      List<Long> pids = workers.stream().map(PunctualProcesses.Role::pid).toList();
      long before = PunctualProcesses.meterCount(workers, "punctual.worker.succeeded");
      servers.settle();
      Usage usageBefore = servers.usage(pids);
      Instant started = Instant.now();
      for (int i = 0; i < entries.size(); i += 1_000) {
        stores.queue().enqueue(entries.subList(i, Math.min(entries.size(), i + 1_000)));
      }
      BenchSupport.waitFor(
          () -> {
            // Rarely: each look serialises every metric of the worker (milliseconds of its CPU),
            // and the rate does not depend on it (it ends at the last result's commit, below).
            Thread.sleep(500);
            return PunctualProcesses.meterCount(workers, "punctual.worker.succeeded") - before
                >= jobs;
          },
          Duration.ofMinutes(10));
      Usage usageAfter = servers.usage(pids);
      verify(stores, jobs);
      Instant last =
          stores
              .database()
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery("SELECT max(updated_at) FROM jobs").mapTo(Instant.class).one());
      return Drain.of(
          jobs, Duration.between(started, last).toNanos() / 1e9, usageBefore, usageAfter);
    }
  }

  /** Every job SUCCEEDED exactly once, with one execution row each: a fast wrong run is no run. */
  static void verify(Stores stores, int jobs) {
    long[] counts =
        stores
            .database()
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

  private static Drain dbScheduler(String url, int jobs, int round, Servers servers)
      throws Exception {
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
              .build();
      servers.settle();
      Usage before = servers.usage(THIS_JVM);
      long started = System.nanoTime();
      scheduler.start();
      BenchSupport.waitFor(() -> done.sum() >= jobs, Duration.ofMinutes(10));
      long elapsed = System.nanoTime() - started;
      Usage after = servers.usage(THIS_JVM);
      scheduler.stop();
      return Drain.of(jobs, elapsed / 1e9, before, after);
    }
  }

  static final List<Long> THIS_JVM = List.of(ProcessHandle.current().pid());

  /**
   * What has been used so far: CPU seconds of the scheduler's processes, of PostgreSQL and of
   * Redis, and PostgreSQL's checkpoints (a checkpoint's flush can stall durable commits).
   */
  record Usage(
      double appCpu, double postgresCpu, double redisCpu, long checkpoints, long walBytes) {}

  /** The shared servers whose CPU a drain is charged with: PostgreSQL (by port) and Redis. */
  record Servers(int postgresPort, long redisPid, String postgresUrl) {
    Usage usage(List<Long> schedulerPids) {
      double app = 0;
      for (long pid : schedulerPids) {
        app += BenchSupport.cpuSeconds(pid, false);
      }
      long[] wal = checkpointsAndWal();
      return new Usage(
          app,
          BenchSupport.postgresCpuSeconds(postgresPort),
          redisPid > 0 ? BenchSupport.cpuSeconds(redisPid, false) : 0,
          wal[0],
          wal[1]);
    }

    /**
     * Waits, up to a minute, until PostgreSQL is quiet: no autovacuum worker running and under a
     * fifth of a core used for half a second. Each side's drain then starts with the vacuum of the
     * rows the last drain (its own or the other side's) and its load left behind already done,
     * rather than paying for it in CPU and in time.
     */
    void settle() throws InterruptedException {
      long started = System.nanoTime();
      long deadline = started + TimeUnit.MINUTES.toNanos(1);
      while (System.nanoTime() < deadline) {
        double cpu = BenchSupport.postgresCpuSeconds(postgresPort);
        Thread.sleep(500);
        if (BenchSupport.postgresCpuSeconds(postgresPort) - cpu < 0.1 && autovacuumWorkers() == 0) {
          break;
        }
      }
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      if (waitedMs > 2_000) {
        System.out.printf(
            Locale.ROOT, "  (waited %.1f s for PostgreSQL to settle)%n", waitedMs / 1e3);
      }
    }

    private long autovacuumWorkers() {
      return longs(
          "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'", 1)[0];
    }

    /** Checkpoints so far, and the WAL written so far (bytes, from the current WAL position). */
    private long[] checkpointsAndWal() {
      return longs(
          "SELECT (SELECT num_timed + num_requested FROM pg_stat_checkpointer),"
              + " CAST(pg_current_wal_lsn() - '0/0' AS bigint)",
          2);
    }

    /** The first {@code n} columns of the one row {@code sql} returns; zeros if it fails. */
    private long[] longs(String sql, int n) {
      long[] out = new long[n];
      try (Connection c = DriverManager.getConnection(postgresUrl, "postgres", "");
          Statement s = c.createStatement();
          var rs = s.executeQuery(sql)) {
        if (rs.next()) {
          for (int i = 0; i < n; i++) {
            out[i] = rs.getLong(i + 1);
          }
        }
      } catch (java.sql.SQLException e) {
        // A look that fails counts as zero: the drain's rate does not depend on it.
      }
      return out;
    }
  }

  /**
   * One drain: its rate, and the CPU it cost per job (microseconds) in the scheduler's own
   * processes (for an in-process run, this whole JVM), in PostgreSQL and in Redis. CPU per job does
   * not drift with the machine's speed the way rates do, so A/B comparisons use it.
   */
  record Drain(
      double perSecond,
      double appCpuUs,
      double postgresCpuUs,
      double redisCpuUs,
      long checkpoints,
      double walBytesPerJob) {
    static Drain of(int jobs, double seconds, Usage before, Usage after) {
      double us = 1e6 / jobs;
      return new Drain(
          jobs / seconds,
          (after.appCpu() - before.appCpu()) * us,
          (after.postgresCpu() - before.postgresCpu()) * us,
          (after.redisCpu() - before.redisCpu()) * us,
          after.checkpoints() - before.checkpoints(),
          (after.walBytes() - before.walBytes()) / (double) jobs);
    }

    String cpuLine() {
      return String.format(
          Locale.ROOT,
          "%.0f us + PostgreSQL %.0f us%s = %.0f us; WAL %.0f bytes per job%s",
          appCpuUs,
          postgresCpuUs,
          redisCpuUs > 0.5 ? String.format(Locale.ROOT, " + Redis %.0f us", redisCpuUs) : "",
          appCpuUs + postgresCpuUs + redisCpuUs,
          walBytesPerJob,
          checkpoints > 0 ? " (" + checkpoints + " checkpoint(s) during the drain)" : "");
    }

    void putCpu(ObjectNode n) {
      n.put("scheduler", Math.round(appCpuUs));
      n.put("postgres", Math.round(postgresCpuUs));
      n.put("redis", Math.round(redisCpuUs));
      n.put("checkpointsDuringDrain", checkpoints);
      n.put("walBytesPerJob", Math.round(walBytesPerJob));
    }
  }

  /**
   * {@code "<lead> R/s, ratio X"} (lead: separator and peer name), or nothing when the peer was
   * skipped (its rate NaN, or a best never set).
   */
  private static String peerPart(String lead, double peer, double punctual) {
    return Double.isNaN(peer) || peer <= 0
        ? ""
        : String.format(Locale.ROOT, "%s %.0f/s, ratio %.2f", lead, peer, punctual / peer);
  }
}
