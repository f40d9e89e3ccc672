package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Backoff;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.JobSubmissions;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.store.namespace.Quota;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fairness between namespaces: namespace {@code a} has a backlog of N due jobs (bulk-loaded into
 * PostgreSQL, then queued in Redis), namespace {@code b} submits R jobs a second, each due 200 ms
 * later, the way the API does (one transaction, then the enqueue). b's start lag (the handler's
 * start minus the job's {@code runAt}, on this JVM's clock) is measured in alternated pairs of
 * windows: with a's backlog being worked (a active) and without it (a deactivated, so the worker
 * leaves its queue alone), in the same run on the same worker. Then b gets a backlog too, a weight
 * 3 and b weight 1, and the jobs each started in a window give the split. One {@code Worker} in
 * this process; every job's handler takes {@code --job-ms}. PostgreSQL runs with fsync and
 * synchronous_commit on.
 *
 * <p>Usage: {@code FairnessBenchmark [--backlog N] [--rate R] [--seconds S] [--pairs P] [--job-ms
 * D] [--concurrency C] [--json FILE]}; defaults 1,000,000 jobs, 50 jobs/s, windows of 15 s, 2
 * pairs, 10 ms, 64 slots.
 */
public final class FairnessBenchmark {
  private FairnessBenchmark() {}

  /**
   * b's jobs are due this long after their submission (as in {@code bench lag}): the lag measured
   * is the start's, not the submit's commit.
   */
  private static final int LEAD_MS = 200;

  public static void main(String[] args) throws Exception {
    long backlog = 1_000_000;
    int rate = 50;
    int seconds = 15;
    int pairs = 2;
    int jobMs = 10;
    int concurrency = 64;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--backlog" -> backlog = Long.parseLong(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--pairs" -> pairs = Integer.parseInt(args[++i]);
        case "--job-ms" -> jobMs = Integer.parseInt(args[++i]);
        case "--concurrency" -> concurrency = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("fairness");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(url);
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s: backlog %,d jobs in a, b at %d jobs/s, windows"
              + " of %d s, %d pairs, jobs of %d ms, %d slots%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          backlog,
          rate,
          seconds,
          pairs,
          jobMs,
          concurrency);
      try (HikariDataSource ds = BenchSupport.dataSource(url, 2)) {
        Migrations.migrate(ds);
      }
      try (Stores stores =
          new Stores(
              new PostgresSettings(url, "postgres", ""),
              new RedisSettings(redis.url(), "fair"),
              new QueueSettings(),
              Clock.systemUTC(),
              "bench")) {
        stores.partitions().ensureAhead();
        stores.namespaces().create("a", Quota.UNLIMITED);
        stores.namespaces().create("b", Quota.UNLIMITED);
        stores.namespaces().setActive("a", false); // loaded, but not worked until measured
        out.set("load", load(stores, "a", backlog));
        run(stores, rate, seconds, pairs, jobMs, concurrency, out);
      }
      out.put("backlog", backlog);
      out.put("rate", rate);
      out.put("seconds", seconds);
      out.put("pairs", pairs);
      out.put("jobMs", jobMs);
      out.put("concurrency", concurrency);
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /** Takes {@code jobMs}; records the start of b's measured jobs and every start by namespace. */
  static final class Probe implements JobHandler {
    final Map<UUID, Instant> due = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<Long> lagsMicros = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicLong> started = new ConcurrentHashMap<>();
    private final int jobMs;

    Probe(int jobMs) {
      this.jobMs = jobMs;
    }

    @Override
    public String type() {
      return "work";
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      Instant now = Instant.now();
      Instant runAt = due.remove(ctx.jobId());
      if (runAt != null) {
        lagsMicros.add(ChronoUnit.MICROS.between(runAt, now));
      }
      started.computeIfAbsent(ctx.namespace(), n -> new AtomicLong()).incrementAndGet();
      Thread.sleep(jobMs);
      return JobResult.success();
    }

    long startedIn(String ns) {
      AtomicLong n = started.get(ns);
      return n == null ? 0 : n.get();
    }
  }

  /** N PENDING jobs of {@code ns}, due a second ago, inserted in one statement per million. */
  private static ObjectNode load(Stores stores, String ns, long n) throws Exception {
    long t0 = System.nanoTime();
    // Ids are UUIDv7 whose time is scheduled_at, as every stored job's (the claim reads the
    // partition key from the id), with random bits from md5.
    String insert =
        """
        INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,
                          attempt, max_attempts, backoff, created_at, updated_at)
        SELECT (lpad(to_hex(CAST(? AS bigint)), 12, '0') || '7' || substr(h, 1, 3) || '8'
                || substr(h, 4, 15))::uuid,
               ?, ?, 'work', '{}'::jsonb, ?, 'PENDING', ?, 0, 3, CAST(? AS jsonb), ?, ?
        FROM (SELECT md5(random()::text || g::text) AS h FROM generate_series(1, ?) g) r
        """;
    Instant dueAt = Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
    java.sql.Timestamp due = java.sql.Timestamp.from(dueAt);
    try (Connection c = stores.database().dataSource().getConnection();
        PreparedStatement p = c.prepareStatement(insert)) {
      for (long done = 0; done < n; done += 1_000_000) {
        long chunk = Math.min(1_000_000, n - done);
        p.setLong(1, dueAt.toEpochMilli());
        p.setTimestamp(2, due);
        p.setString(3, ns);
        p.setShort(4, (short) Priority.NORMAL.rank());
        p.setTimestamp(5, due);
        p.setString(6, Json.write(Backoff.DEFAULT));
        p.setTimestamp(7, due);
        p.setTimestamp(8, due);
        p.setLong(9, chunk);
        p.executeUpdate();
      }
    }
    try (Connection c = stores.database().dataSource().getConnection();
        java.sql.Statement s = c.createStatement()) {
      // Statistics as a database that grew to this size has them (autovacuum would, in time):
      // without them the first claims plan for an empty table.
      s.execute("ANALYZE jobs");
    }
    double stored = (System.nanoTime() - t0) / 1e9;
    long queued = 0;
    try (Connection c = stores.database().dataSource().getConnection()) {
      c.setAutoCommit(false); // a cursor, not the whole result in memory
      try (PreparedStatement p =
          c.prepareStatement(
              "SELECT id, run_at FROM jobs WHERE namespace = ? AND status = 'PENDING'")) {
        p.setFetchSize(10_000);
        p.setString(1, ns);
        try (ResultSet rs = p.executeQuery()) {
          List<QueueEntry> batch = new ArrayList<>(10_000);
          while (rs.next()) {
            batch.add(
                new QueueEntry(
                    rs.getObject(1, UUID.class),
                    ns,
                    Priority.NORMAL,
                    rs.getTimestamp(2).toInstant()));
            if (batch.size() == 10_000) {
              stores.queue().enqueue(batch);
              queued += batch.size();
              batch.clear();
            }
          }
          stores.queue().enqueue(batch);
          queued += batch.size();
        }
      }
      c.commit();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "  backlog of %s: %,d jobs stored in %.0f s, %,d queued, %.0f s in all%n",
        ns,
        n,
        stored,
        queued,
        seconds);
    ObjectNode result = Json.mapper().createObjectNode();
    result.put("jobs", n);
    result.put("storedSeconds", Math.round(stored));
    result.put("seconds", Math.round(seconds));
    return result;
  }

  private static void run(
      Stores stores, int rate, int seconds, int pairs, int jobMs, int concurrency, ObjectNode out)
      throws Exception {
    WorkerSettings settings = new WorkerSettings();
    settings.namespaces = List.of("a", "b");
    settings.concurrency = concurrency;
    settings.namespaceRefresh = Duration.ofMillis(200);
    Probe probe = new Probe(jobMs);
    try (Worker worker =
        new Worker(stores, settings, new JobHandlers().register(probe), new MetricRegistry())) {
      worker.start();
      List<Long> alone = new ArrayList<>();
      List<Long> behind = new ArrayList<>();
      // Warm-up: b alone, not counted.
      window(stores, probe, rate, Math.max(5, seconds / 2), false);
      for (int pair = 0; pair < pairs; pair++) {
        stores.namespaces().setActive("a", false);
        Thread.sleep(settings.namespaceRefresh.toMillis() * 2 + jobMs * 2L);
        alone.addAll(window(stores, probe, rate, seconds, true));
        stores.namespaces().setActive("a", true);
        long aBefore = probe.startedIn("a");
        Thread.sleep(settings.namespaceRefresh.toMillis() * 2);
        behind.addAll(window(stores, probe, rate, seconds, true));
        long left = stores.namespaces().countPending("a", Long.MAX_VALUE);
        System.out.printf(
            Locale.ROOT,
            "  pair %d: a started %,d jobs in its window, %,d still pending%n",
            pair + 1,
            probe.startedIn("a") - aBefore,
            left);
        if (left < (long) concurrency * 10) {
          System.out.println(
              "  note: a's backlog ran out; the last window is not behind a backlog");
        }
      }
      stores.namespaces().setActive("a", false);
      LagBenchmark.Percentiles quiet = percentiles(alone);
      LagBenchmark.Percentiles busy = percentiles(behind);
      print("b alone (a deactivated)", quiet, alone.size());
      print("b while a has its backlog", busy, behind.size());
      System.out.printf(
          Locale.ROOT,
          "  ratio behind / alone: p50 %.2f, p99 %.2f%n",
          busy.p50() / Math.max(0.01, quiet.p50()),
          busy.p99() / Math.max(0.01, quiet.p99()));
      out.set("lagAloneMs", quiet.toJson());
      out.set("lagBehindBacklogMs", busy.toJson());
      out.put("p99RatioBehindOverAlone", busy.p99() / Math.max(0.01, quiet.p99()));
      out.set("split", split(stores, probe, settings, seconds, concurrency, jobMs));
    }
  }

  /** Weights 3:1, both backlogged: the starts of each in a window. */
  private static ObjectNode split(
      Stores stores, Probe probe, WorkerSettings settings, int seconds, int concurrency, int jobMs)
      throws Exception {
    // Enough for b to stay backlogged through the window at its quarter of the slots.
    long bJobs = (long) concurrency * 1000 / jobMs * seconds / 2;
    stores.namespaces().setActive("b", false);
    load(stores, "b", bJobs);
    stores.namespaces().setWeight("a", 3);
    stores.namespaces().setWeight("b", 1);
    stores.namespaces().setActive("a", true);
    stores.namespaces().setActive("b", true);
    Thread.sleep(settings.namespaceRefresh.toMillis() * 2 + 1000);
    long a0 = probe.startedIn("a");
    long b0 = probe.startedIn("b");
    Thread.sleep(seconds * 1000L);
    long a = probe.startedIn("a") - a0;
    long b = probe.startedIn("b") - b0;
    long aLeft = stores.namespaces().countPending("a", 1_000);
    long bLeft = stores.namespaces().countPending("b", 1_000);
    stores.namespaces().setActive("a", false);
    stores.namespaces().setActive("b", false);
    System.out.printf(
        Locale.ROOT,
        "  weights a 3, b 1, both backlogged, %d s: a started %,d, b %,d: %.2f : 1%s%n",
        seconds,
        a,
        b,
        (double) a / Math.max(1, b),
        aLeft == 0 || bLeft == 0 ? " (a backlog ran out: not a split between two backlogs)" : "");
    ObjectNode split = Json.mapper().createObjectNode();
    split.put("weights", "3:1");
    split.put("startedA", a);
    split.put("startedB", b);
    split.put("ratio", (double) a / Math.max(1, b));
    return split;
  }

  /** b submits {@code rate} jobs a second for {@code seconds}; returns their lags in µs. */
  private static List<Long> window(
      Stores stores, Probe probe, int rate, int seconds, boolean measured) throws Exception {
    probe.lagsMicros.clear();
    List<UUID> ids = new ArrayList<>();
    LagBenchmark.paced(
        "b",
        rate,
        0,
        seconds,
        LEAD_MS,
        (count, runAt, counted) -> {
          List<NewJob> jobs = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            jobs.add(
                NewJob.builder("b", "work", runAt).maxAttempts(3).idempotencyKey(null, "").build());
          }
          List<QueueEntry> entries = new ArrayList<>(count);
          for (JobSubmissions.Submitted s : stores.submissions().submit(jobs)) {
            probe.due.put(s.job().id(), s.job().runAt());
            synchronized (ids) {
              ids.add(s.job().id());
            }
            entries.add(
                new QueueEntry(
                    s.job().id(), s.job().namespace(), s.job().priority(), s.job().runAt()));
          }
          stores.queue().enqueue(entries);
        });
    // Every job of the window started (or 60 s passed: then the missing ones count as 60 s).
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (probe.lagsMicros.size() < ids.size() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    List<Long> lags = new ArrayList<>(probe.lagsMicros);
    while (lags.size() < ids.size()) {
      lags.add(60_000_000L);
    }
    return measured ? lags : List.of();
  }

  private static LagBenchmark.Percentiles percentiles(List<Long> micros) {
    long[] ms = micros.stream().mapToLong(m -> Math.round(m / 1000.0)).toArray();
    return LagBenchmark.Percentiles.of(ms);
  }

  private static void print(String who, LagBenchmark.Percentiles p, int n) {
    System.out.printf(
        Locale.ROOT,
        "  %-30s jobs %6d  lag ms p50 %5.0f  p95 %5.0f  p99 %5.0f  max %5.0f%n",
        who,
        n,
        p.p50(),
        p.p95(),
        p.p99(),
        p.max());
  }
}
