package io.punctual.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.Stores;
import io.punctual.common.config.PostgresSettings;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.config.RedisSettings;
import io.punctual.common.job.JobState;
import io.punctual.common.job.Priority;
import io.punctual.common.json.Json;
import io.punctual.common.queue.QueueEntry;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.redis.RedisConnection;
import io.punctual.common.redis.RedisConnector;
import io.punctual.common.redis.RedisKeys;
import io.punctual.common.stats.StatsReader;
import io.punctual.common.stats.StatsRollup;
import io.punctual.common.store.JobQueries;
import io.punctual.common.store.JobQueries.JobQuery;
import io.punctual.common.store.Migrations;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The store at scale: N jobs bulk-loaded into PostgreSQL (durable) over the last 30 days and the
 * next 3 (50 namespaces = tenants, 20 types; about 94% SUCCEEDED, 5% FAILED after 3 attempts, 1%
 * CANCELLED, the future ones PENDING, one in 100,000 still RUNNING; payload {@code {"order": n,
 * "customer": "c-<n mod 1000>"}}, one job in 100 with an idempotency key), with one {@code
 * job_executions} row per finished attempt; then the queries users run, the way the API runs them
 * ({@code GET /jobs} goes through {@link JobQueries#list}, the same prepared statement) or, for an
 * aggregate the API has no endpoint for, as plain SQL. Each query is timed (its first run, then the
 * best and median of the next five) and explained ({@code EXPLAIN (ANALYZE, BUFFERS)}: the
 * partitions it read, the indexes it used). Then the Redis memory one queued job costs, measured
 * through the real {@link ReadyQueue}. Between the two, the operations console on the loaded store
 * over HTTP ({@link ScalePages}): every page's REST calls, the Prometheus scrape, ten polling tabs
 * and the CPU they cost PostgreSQL.
 *
 * <p>Usage: {@code ScaleBenchmark [--jobs N] [--queued M] [--json FILE] [--store DIR] [--reps R]
 * [--scrapes S] [--tabs T] [--tab-seconds W] [--no-payload-index] [--no-console]} (defaults
 * 10,000,000 jobs and 1,000,000 queue entries; see load-tests/bench). The full plans go to {@code
 * target/scale-explain.txt}.
 */
public final class ScaleBenchmark {
  private ScaleBenchmark() {}

  private static final int DAYS_BACK = 30;
  private static final int DAYS_AHEAD = 3;
  private static final String TENANT = "tenant-7";
  private static final String TYPE = "type-7";

  public static void main(String[] args) throws Exception {
    long jobs = 10_000_000;
    int queued = 1_000_000;
    Path json = null;
    Path store = null;
    int reps = 20;
    int scrapes = 50;
    int tabs = 10;
    int tabSeconds = 60;
    boolean payloadIndex = true;
    boolean console = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Long.parseLong(args[++i]);
        case "--queued" -> queued = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        case "--store" -> store = Path.of(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--scrapes" -> scrapes = Integer.parseInt(args[++i]);
        case "--tabs" -> tabs = Integer.parseInt(args[++i]);
        case "--tab-seconds" -> tabSeconds = Integer.parseInt(args[++i]);
        case "--no-payload-index" -> payloadIndex = false;
        case "--no-console" -> console = false;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("scale");
    out.put("jobs", jobs);
    Map<String, String> extra =
        Map.of("shared_buffers", "512MB", "max_wal_size", "8GB", "maintenance_work_mem", "512MB");
    if (store != null) {
      Files.createDirectories(store);
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(store, true, extra);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(url);
      BenchSupport.putPostgres(out, postgres);
      System.out.printf(
          Locale.ROOT,
          "%s shared_buffers=512MB, %d cores, JDK %s, load average %s, %,d jobs%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          jobs);
      try (Stores stores =
          new Stores(
              new PostgresSettings(url, "postgres", ""),
              new RedisSettings(redis.url(), "scale"),
              new QueueSettings(),
              Clock.systemUTC(),
              "scale")) {
        Migrations.migrate(stores.database().dataSource());
        if (loaded(stores) == jobs) {
          System.out.printf(
              Locale.ROOT, "the store in %s holds the %,d jobs already%n", store, jobs);
        } else {
          out.set("load", load(stores, jobs));
        }
        out.put("statsHourRows", fillStatsHours(stores));
        out.set("queries", queries(stores));
        if (console) {
          out.set(
              "console",
              ScalePages.run(
                  stores,
                  url,
                  redis.url(),
                  pg.port(),
                  TENANT,
                  new ScalePages.Options(reps, scrapes, tabs, tabSeconds, payloadIndex)));
        }
        try (Connection c = stores.database().dataSource().getConnection();
            Statement s = c.createStatement()) {
          if (store == null) {
            // Gigabytes of dirty pages would make the server's shutdown checkpoint outlast the
            // embedded server's stop timeout (and leave its directory behind): drop them first.
            s.execute("DROP TABLE jobs, job_executions");
          }
          s.execute("CHECKPOINT");
        }
      }
      if (queued > 0) {
        out.set("redis", redisMemory(redis.url(), queued));
      }
    }
    BenchSupport.writeJson(json, out);
  }

  private static ObjectNode load(Stores stores, long jobs) throws Exception {
    ObjectNode result = Json.mapper().createObjectNode();
    long t0 = System.nanoTime();
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT punctual_ensure_partitions(CURRENT_DATE - "
              + (DAYS_BACK + 1)
              + ", CURRENT_DATE + "
              + (DAYS_AHEAD + 1)
              + ")");
    }
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    long chunk = 1_000_000;
    long span = (DAYS_BACK + DAYS_AHEAD) * 86_400_000L;
    long from = today.minusDays(DAYS_BACK).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    long nowMs = Instant.now().toEpochMilli();
    // Job g is scheduled at from + (g * 7919 mod N) / N of the span: spread evenly over the 33 days
    // and not in id order. Statuses follow the time: the past is final (or, rarely, still RUNNING),
    // the future PENDING. Failed jobs used all 3 attempts. Tenant and type come from a hash.
    String insertJobs =
        """
        INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,
                          attempt, max_attempts, backoff, tags, created_at, updated_at, started_at,
                          finished_at, heartbeat_at, worker_id, last_error, result, idempotency_key)
        SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
               punctual_ms(ms), 'tenant-' || (('x' || substr(h, 20, 4))::bit(16)::int % 50),
               'type-' || (('x' || substr(h, 24, 4))::bit(16)::int % 20),
               jsonb_build_object('order', g, 'customer', 'c-' || (g % 1000)), (g % 4)::smallint, st,
               punctual_ms(CASE WHEN st = 'FAILED' THEN ms + 3000 ELSE ms END),
               CASE st WHEN 'PENDING' THEN 0 WHEN 'FAILED' THEN 3 ELSE 1 END, 3,
               CAST(? AS jsonb),
               CASE WHEN g % 10 = 0 THEN ARRAY['batch-' || (g % 1000)] ELSE '{}'::text[] END,
               punctual_ms(ms), punctual_ms(ms + 60),
               CASE WHEN st = 'PENDING' THEN NULL ELSE punctual_ms(ms) END,
               CASE WHEN st IN ('PENDING', 'RUNNING') THEN NULL ELSE punctual_ms(ms + 60) END,
               CASE WHEN st = 'RUNNING' THEN punctual_ms(ms + 1000) END,
               CASE WHEN st = 'RUNNING' THEN 'worker-' || (g % 7) END,
               CASE WHEN st = 'FAILED' THEN 'java.lang.IllegalStateException: planned failure ' || (g % 13) END,
               CASE WHEN st = 'SUCCEEDED' THEN '{"ok":true}'::jsonb END,
               CASE WHEN g % 100 = 0 THEN 'order-' || g END
        FROM (
          SELECT g, ms, md5(g::text) AS h,
                 CASE WHEN ms > ? THEN 'PENDING'
                      WHEN g % 100000 = 7 THEN 'RUNNING'
                      WHEN g % 100 < 5 THEN 'FAILED'
                      WHEN g % 100 = 5 THEN 'CANCELLED'
                      ELSE 'SUCCEEDED' END AS st
          FROM (SELECT g, ? + (g * 7919 % ?) * ? / ? AS ms FROM generate_series(?, ?) g) x
        ) y
        """;
    try (Connection c = stores.database().dataSource().getConnection();
        PreparedStatement p = c.prepareStatement(insertJobs)) {
      for (long start = 1; start <= jobs; start += chunk) {
        long end = Math.min(jobs, start + chunk - 1);
        p.setString(1, Json.write(io.punctual.common.job.Backoff.DEFAULT));
        p.setLong(2, nowMs);
        p.setLong(3, from);
        p.setLong(4, jobs);
        p.setLong(5, span);
        p.setLong(6, jobs);
        p.setLong(7, start);
        p.setLong(8, end);
        p.executeUpdate();
        System.out.printf(
            Locale.ROOT, "  loaded %,d jobs (%.0f s)%n", end, (System.nanoTime() - t0) / 1e9);
      }
    }
    long jobsDone = System.nanoTime();
    // One execution row per finished attempt, day by day (each day is one partition of both).
    String insertExecutions =
        """
        INSERT INTO job_executions (job_id, job_scheduled_at, attempt, namespace, worker_id, status,
                                    started_at, finished_at, duration_ms, error, result)
        SELECT j.id, j.scheduled_at, a, j.namespace, 'worker-' || (a % 7),
               CASE WHEN j.status = 'FAILED' THEN 'FAILED' WHEN j.status = 'CANCELLED' THEN 'CANCELLED'
                    ELSE 'SUCCEEDED' END,
               j.scheduled_at + (a - 1) * interval '1 second',
               j.scheduled_at + (a - 1) * interval '1 second' + interval '60 milliseconds', 60,
               j.last_error, j.result
        FROM jobs j, generate_series(1, j.attempt) a
        WHERE j.scheduled_at >= ? AND j.scheduled_at < ?
          AND j.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
        """;
    long executions = 0;
    try (Connection c = stores.database().dataSource().getConnection();
        PreparedStatement p = c.prepareStatement(insertExecutions)) {
      for (LocalDate d = today.minusDays(DAYS_BACK); !d.isAfter(today); d = d.plusDays(1)) {
        p.setObject(1, d.atStartOfDay(ZoneOffset.UTC).toOffsetDateTime());
        p.setObject(2, d.plusDays(1).atStartOfDay(ZoneOffset.UTC).toOffsetDateTime());
        executions += p.executeUpdate();
      }
    }
    System.out.printf(
        Locale.ROOT,
        "  %,d execution rows (%.0f s)%n",
        executions,
        (System.nanoTime() - jobsDone) / 1e9);
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      // One job in 100 was submitted with an idempotency key (GET /jobs?idempotencyKey=).
      s.execute(
          "INSERT INTO idempotency_keys (namespace, key, job_id, request_hash, created_at)"
              + " SELECT namespace, idempotency_key, id, 'bench', created_at FROM jobs"
              + " WHERE idempotency_key IS NOT NULL");
      s.execute("VACUUM ANALYZE idempotency_keys");
      s.execute("VACUUM ANALYZE jobs");
      s.execute("VACUUM ANALYZE job_executions");
    }
    // The statistics rollup over the whole history (what the reaper keeps current minute by
    // minute), so that GET /api/v1/stats is timed on the rollup of these jobs.
    long rollupStart = System.nanoTime();
    long rollupRows = rollup(stores, today.minusDays(DAYS_BACK + 1));
    System.out.printf(
        Locale.ROOT,
        "  statistics rollup: %,d rows (%.0f s)%n",
        rollupRows,
        (System.nanoTime() - rollupStart) / 1e9);
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE job_stats_minutes");
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    String sizes;
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))"
                    + " FILTER (WHERE i.inhparent = 'jobs'::regclass)),"
                    + " pg_size_pretty(sum(pg_total_relation_size(c.oid))"
                    + " FILTER (WHERE i.inhparent = 'job_executions'::regclass)),"
                    + " (SELECT count(*) FROM pg_inherits WHERE inhparent = 'jobs'::regclass)"
                    + " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid")) {
      rs.next();
      sizes =
          String.format(
              Locale.ROOT,
              "jobs %s, job_executions %s (with indexes), %d daily partitions each",
              rs.getString(1),
              rs.getString(2),
              rs.getLong(3));
      result.put("jobsSize", rs.getString(1));
      result.put("executionsSize", rs.getString(2));
      result.put("partitions", rs.getLong(3));
    }
    System.out.printf(Locale.ROOT, "load + VACUUM ANALYZE: %.0f s; %s%n", seconds, sizes);
    result.put("seconds", Math.round(seconds));
    result.put("executions", executions);
    result.put("statsRows", rollupRows);
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS bench_scale_loaded (jobs bigint NOT NULL)");
      s.execute("DELETE FROM bench_scale_loaded");
      s.execute("INSERT INTO bench_scale_loaded VALUES (" + jobs + ")");
    }
    return result;
  }

  /** The jobs a kept store (--store) was loaded with; 0 when not loaded. */
  private static long loaded(Stores stores) throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT to_regclass('bench_scale_loaded') IS NULL")) {
        rs.next();
        if (rs.getBoolean(1)) {
          return 0;
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT coalesce(max(jobs), 0) FROM bench_scale_loaded")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The statistics rollup of the loaded history, loaded day by day by one statement each
   * (scale-rollup.sql: StatsRollup's own query, grouped in SQL; a pass of StatsRollup itself builds
   * its rows in memory, hours at 10 million jobs). First checked on one hour against what
   * StatsRollup.runOnce writes for it: the same rows, or the benchmark stops. Returns the rows.
   */
  private static long rollup(Stores stores, LocalDate from) throws Exception {
    String rollupSql = resource("/io/punctual/common/stats/StatsRollup/rollup.sql");
    String load =
        resource("/io/punctual/bench/scale-rollup.sql").replace("/*rollup*/", rollupSql.strip());
    Instant hour =
        LocalDate.now(ZoneOffset.UTC).minusDays(1).atTime(12, 0).toInstant(ZoneOffset.UTC);
    Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("DELETE FROM job_stats_minutes");
      s.execute("DELETE FROM job_stats_rollup");
      s.executeUpdate(rollupRange(load, hour, hour.plus(Duration.ofHours(1))));
      String ours = digest(s, hour);
      s.execute("DELETE FROM job_stats_minutes");
      s.execute(
          "INSERT INTO job_stats_rollup (id, done_until) VALUES (1, "
              + timestamp(hour.plus(Duration.ofMinutes(1)))
              + ")");
      Instant[] clockNow = {hour.plus(Duration.ofHours(1))};
      new StatsRollup(
              stores.database().jdbi(),
              Clock.fixed(clockNow[0], ZoneOffset.UTC),
              Duration.ofMinutes(1),
              Duration.ofHours(1),
              Duration.ofDays(DAYS_BACK + DAYS_AHEAD + 10))
          .runOnce();
      String theirs = digest(s, hour);
      if (!ours.equals(theirs)) {
        throw new IllegalStateException(
            "scale-rollup.sql and StatsRollup disagree on " + hour + ": " + ours + " / " + theirs);
      }
      System.out.println("  statistics rollup checked on one hour against StatsRollup: " + ours);
      s.execute("DELETE FROM job_stats_minutes");
      s.execute("DELETE FROM job_stats_hours");
      s.execute("DELETE FROM job_stats_days");
      s.execute(
          "UPDATE job_stats_rollup SET hours_until = NULL, days_from = NULL, days_until = NULL");
      long rows = 0;
      for (LocalDate d = from;
          d.atStartOfDay(ZoneOffset.UTC).toInstant().isBefore(now);
          d = d.plusDays(1)) {
        Instant start = d.atStartOfDay(ZoneOffset.UTC).toInstant();
        Instant end = d.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        rows += s.executeUpdate(rollupRange(load, start, end.isAfter(now) ? now : end));
      }
      s.execute("UPDATE job_stats_rollup SET done_until = " + timestamp(now));
      return rows;
    }
  }

  /**
   * Fills job_stats_hours from the loaded minutes as the reaper does on a store migrated with its
   * minutes already there ({@link StatsRollup#fillHours()}, a day per pass, until a pass has
   * nothing left to do): after a fresh load, and on a store kept (--store) by a release without the
   * hours. Nothing to do when they are filled already. Returns the hour rows written.
   */
  private static long fillStatsHours(Stores stores) throws Exception {
    long t0 = System.nanoTime();
    StatsRollup rollup =
        new StatsRollup(
            stores.database().jdbi(),
            Clock.systemUTC(),
            Duration.ofMinutes(1),
            Duration.ofHours(1),
            Duration.ofDays(DAYS_BACK + DAYS_AHEAD + 10));
    long rows = 0;
    long dayRows = 0;
    int passes = 0;
    for (StatsRollup.Hours h = rollup.fillHours(); h.filled(); h = rollup.fillHours()) {
      rows += h.rows();
      dayRows += h.dayRows();
      passes++;
    }
    if (passes > 0) {
      try (Connection c = stores.database().dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("VACUUM ANALYZE job_stats_hours");
        s.execute("VACUUM ANALYZE job_stats_days");
      }
    }
    System.out.printf(
        Locale.ROOT,
        "  statistics by hour and day: %,d hour rows and %,d day rows filled in %d passes of"
            + " StatsRollup.fillHours (%.0f s)%n",
        rows,
        dayRows,
        passes,
        (System.nanoTime() - t0) / 1e9);
    return rows;
  }

  private static String rollupRange(String sql, Instant start, Instant end) {
    return sql.replace(":start", timestamp(start)).replace(":end", timestamp(end));
  }

  /** The rows of one hour of job_stats_minutes: their count and a digest of their values. */
  private static String digest(Statement s, Instant hour) throws Exception {
    try (ResultSet rs =
        s.executeQuery(
            "SELECT count(*), md5(string_agg(t::text, ',' ORDER BY namespace, minute, type))"
                + " FROM job_stats_minutes t WHERE minute >= "
                + timestamp(hour)
                + " AND minute < "
                + timestamp(hour.plus(Duration.ofHours(1))))) {
      rs.next();
      if (rs.getLong(1) == 0) {
        throw new IllegalStateException("no statistics rows for " + hour + " to compare");
      }
      return rs.getLong(1) + " rows, md5 " + rs.getString(2);
    }
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = ScaleBenchmark.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** One user query: how it is run (the API's statement or SQL) and how it is explained. */
  private record UserQuery(String name, String how, Callable<Integer> run, String explain) {}

  private static ArrayNode queries(Stores stores) throws Exception {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    Instant yesterday = today.minusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant midnight = today.atStartOfDay(ZoneOffset.UTC).toInstant();
    JobQuery failedYesterday =
        new JobQuery(TENANT, JobState.FAILED, null, null, yesterday, midnight, null, 50);
    JobQuery pendingOfType =
        new JobQuery(TENANT, JobState.PENDING, TYPE, null, null, null, null, 50);
    JobQuery running = new JobQuery(TENANT, JobState.RUNNING, null, null, null, null, null, 50);
    String successRate =
        """
        SELECT type, count(*) FILTER (WHERE status = 'SUCCEEDED')::float8 / count(*) AS success_rate,
               count(*) AS finished
        FROM jobs
        WHERE namespace = 'tenant-7' AND status IN ('SUCCEEDED', 'FAILED')
          AND scheduled_at >= now() - interval '7 days' AND scheduled_at < now()
        GROUP BY type ORDER BY type""";
    String successRateAll = successRate.replace("namespace = 'tenant-7' AND ", "");
    String stuck =
        """
        SELECT id, type, worker_id, started_at, heartbeat_at FROM jobs
        WHERE namespace = 'tenant-7' AND status = 'RUNNING'
          AND started_at < now() - interval '1 hour'
        ORDER BY started_at LIMIT 100""";
    List<UserQuery> queries =
        List.of(
            new UserQuery(
                "failed jobs from yesterday (tenant)",
                "GET /jobs?status=FAILED&from=<yesterday>&to=<today>",
                () -> stores.queries().list(failedYesterday).items().size(),
                listExplain(failedYesterday)),
            new UserQuery(
                "pending jobs of type X for tenant Y",
                "GET /jobs?status=PENDING&type=type-7",
                () -> stores.queries().list(pendingOfType).items().size(),
                listExplain(pendingOfType)),
            new UserQuery(
                "success rate by type over 7 days (tenant)",
                "SQL",
                () -> count(stores, successRate),
                successRate),
            new UserQuery(
                "success rate by type over 7 days (all tenants)",
                "SQL",
                () -> count(stores, successRateAll),
                successRateAll),
            new UserQuery(
                "success rate by type over 7 days (tenant), rollup",
                "GET /stats?groupBy=type&from=<7 days ago>",
                () ->
                    new StatsReader(stores.database().jdbi())
                        .groups(
                            List.of(TENANT),
                            Instant.now().minus(Duration.ofDays(7)),
                            Instant.now(),
                            StatsReader.GroupBy.TYPE)
                        .size(),
                "SELECT * FROM job_stats_minutes WHERE namespace = '"
                    + TENANT
                    + "' AND minute >= now() - interval '7 days' AND minute < now()"),
            new UserQuery(
                "per-minute series, last 24 hours (tenant), rollup",
                "GET /stats/series?from=<24 h ago>",
                () ->
                    new StatsReader(stores.database().jdbi())
                        .series(TENANT, Instant.now().minus(Duration.ofDays(1)), Instant.now())
                        .size(),
                "SELECT minute, sum(started) FROM job_stats_minutes WHERE namespace = '"
                    + TENANT
                    + "' AND minute >= now() - interval '1 day' GROUP BY minute"),
            new UserQuery(
                "jobs stuck RUNNING for over an hour (tenant)",
                "SQL",
                () -> count(stores, stuck),
                stuck),
            new UserQuery(
                "running jobs (tenant)",
                "GET /jobs?status=RUNNING",
                () -> stores.queries().list(running).items().size(),
                listExplain(running)));
    ArrayNode results = Json.mapper().createArrayNode();
    StringBuilder plans = new StringBuilder();
    System.out.printf(
        Locale.ROOT,
        "%n%-48s %-52s %8s %8s %8s %5s%n",
        "query",
        "as",
        "first ms",
        "best ms",
        "median",
        "rows");
    // Warms the client side (statement preparation, row mapping) on a namespace with no jobs, so
    // that the first run of each query measures the database, not class loading.
    stores
        .queries()
        .list(new JobQuery("nobody", JobState.FAILED, null, null, null, null, null, 50));
    count(stores, "SELECT 1");
    for (UserQuery q : queries) {
      double first = time(q.run());
      double[] ms = new double[5];
      int rows = 0;
      for (int i = 0; i < ms.length; i++) {
        long t = System.nanoTime();
        rows = q.run().call();
        ms[i] = (System.nanoTime() - t) / 1e6;
      }
      Arrays.sort(ms);
      ObjectNode r = results.addObject();
      r.put("query", q.name());
      r.put("as", q.how());
      r.put("firstMs", round(first));
      r.put("bestMs", round(ms[0]));
      r.put("medianMs", round(ms[2]));
      r.put("rows", rows);
      String summary = explain(stores, q, plans, r);
      System.out.printf(
          Locale.ROOT,
          "%-48s %-52s %8.1f %8.1f %8.1f %5d%n    %s%n",
          q.name(),
          q.how(),
          first,
          ms[0],
          ms[2],
          rows,
          summary);
    }
    Path file = Path.of("target", "scale-explain.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(file, plans);
    System.out.println("full plans: " + file);
    return results;
  }

  private static double time(Callable<Integer> run) throws Exception {
    long t = System.nanoTime();
    run.call();
    return (System.nanoTime() - t) / 1e6;
  }

  private static double round(double ms) {
    return Math.round(ms * 10) / 10.0;
  }

  private static int count(Stores stores, String sql) {
    return stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapToMap().list().size());
  }

  /**
   * The API's list statement ({@code JobQueries/list.sql}) with this query's values, the way the
   * server plans it for a prepared statement's first executions (a custom plan).
   */
  private static String listExplain(JobQuery q) throws Exception {
    String sql;
    try (InputStream in =
        JobQueries.class.getResourceAsStream("/io/punctual/common/store/JobQueries/list.sql")) {
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Instant from = q.from() == null ? Instant.EPOCH : q.from();
    Instant to = q.to() == null ? Instant.ofEpochMilli((1L << 48) - 1) : q.to();
    return sql.replaceAll("(?m)^--.*\\n", "")
        .replace(":namespace", literal(q.namespace()))
        .replace(":from", timestamp(from))
        .replace(":to", timestamp(to))
        .replace(":status", q.status() == null ? "NULL" : literal(q.status().name()))
        .replace(":type", q.type() == null ? "NULL" : literal(q.type()))
        .replace(":tag", q.tag() == null ? "NULL" : literal(q.tag()))
        .replace(":cursor", "NULL")
        .replace(":limit", Integer.toString(q.limit() + 1));
  }

  private static String timestamp(Instant t) {
    // ISO-8601 without the sign java.time puts before years past 9999, which PostgreSQL refuses.
    return literal(t.toString().replace("+", "")) + "::timestamptz";
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /**
   * Runs EXPLAIN (ANALYZE, BUFFERS) and returns a one-line summary; the full plan goes to plans.
   */
  private static String explain(Stores stores, UserQuery q, StringBuilder plans, ObjectNode r)
      throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      plans.append("== ").append(q.name()).append(" (").append(q.how()).append(")\n");
      plans.append(q.explain()).append("\n\n");
      try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + q.explain())) {
        while (rs.next()) {
          plans.append(rs.getString(1)).append('\n');
        }
      }
      plans.append('\n');
      JsonNode plan;
      try (ResultSet rs =
          s.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + q.explain())) {
        rs.next();
        plan = Json.mapper().readTree(rs.getString(1)).get(0);
      }
      Set<String> partitions = new LinkedHashSet<>();
      Set<String> access = new LinkedHashSet<>();
      int[] removed = {0};
      walk(plan.get("Plan"), partitions, access, removed);
      JsonNode top = plan.get("Plan");
      long hit = top.path("Shared Hit Blocks").asLong();
      long read = top.path("Shared Read Blocks").asLong();
      double planning = plan.path("Planning Time").asDouble();
      double execution = plan.path("Execution Time").asDouble();
      long total;
      try (ResultSet rs =
          s.executeQuery("SELECT count(*) FROM pg_inherits WHERE inhparent = 'jobs'::regclass")) {
        rs.next();
        total = rs.getLong(1);
      }
      r.put("partitionsRead", partitions.size());
      r.put("partitionsTotal", total);
      r.put("access", String.join(", ", access));
      r.put("planningMs", planning);
      r.put("executionMs", execution);
      r.put("sharedHit", hit);
      r.put("sharedRead", read);
      return String.format(
          Locale.ROOT,
          "partitions read %d of %d%s; %s; buffers hit %d read %d; planning %.1f ms, execution"
              + " %.1f ms",
          partitions.size(),
          total,
          removed[0] > 0 ? " (" + removed[0] + " pruned at run time)" : "",
          String.join(", ", access),
          hit,
          read,
          planning,
          execution);
    }
  }

  private static void walk(
      JsonNode node, Set<String> partitions, Set<String> access, int[] removed) {
    if (node == null) {
      return;
    }
    removed[0] += node.path("Subplans Removed").asInt(0);
    String type = node.path("Node Type").asText();
    boolean executed = node.path("Actual Loops").asLong(1) > 0;
    String rel = node.path("Relation Name").asText("");
    if (executed && (rel.startsWith("jobs_p") || rel.startsWith("job_executions_p"))) {
      partitions.add(rel);
    }
    String index = node.path("Index Name").asText("");
    if (!index.isEmpty()) {
      access.add(type + " " + index.replaceAll("_p\\d{8}", "_pYYYYMMDD"));
    } else if (!rel.isEmpty()) {
      access.add(type);
    }
    for (JsonNode child : node.path("Plans")) {
      walk(child, partitions, access, removed);
    }
  }

  private static ObjectNode redisMemory(String url, int n) {
    ObjectNode result = Json.mapper().createObjectNode();
    RedisConnector client = RedisConnector.standalone(url);
    try (RedisConnection c = client.connect()) {
      long before = usedMemory(c);
      RedisKeys keys = new RedisKeys("mem");
      ReadyQueue queue = new ReadyQueue(c, keys, new QueueSettings());
      List<QueueEntry> batch = new ArrayList<>();
      Instant base = Instant.now().plus(Duration.ofHours(1));
      Priority[] priorities = Priority.values();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        // Real job ids (scheduled-time UUIDs) spread over the four priorities of one namespace.
        Instant runAt = base.plusMillis(i / 10);
        batch.add(
            new QueueEntry(
                io.punctual.common.job.JobId.forScheduledTime(runAt),
                "default",
                priorities[i % priorities.length],
                runAt));
        if (batch.size() == 1_000) {
          queue.enqueue(batch);
          batch.clear();
        }
      }
      queue.enqueue(batch);
      double seconds = (System.nanoTime() - t0) / 1e9;
      long after = usedMemory(c);
      long keyBytes = 0;
      for (String key : keys.queues("default")) {
        Long usage = c.sync().memoryUsage(key);
        keyBytes += usage == null ? 0 : usage;
      }
      double perJob = (after - before) / (double) n;
      System.out.printf(
          Locale.ROOT,
          "%nRedis memory per queued job: %.0f bytes (used_memory %,d -> %,d for %,d entries over"
              + " 4 priority queues; MEMORY USAGE of the queues %.0f bytes per entry); enqueued"
              + " at %,.0f entries/s%n",
          perJob,
          before,
          after,
          n,
          keyBytes / (double) n,
          n / seconds);
      result.put("queuedJobs", n);
      result.put("usedMemoryBefore", before);
      result.put("usedMemoryAfter", after);
      result.put("bytesPerQueuedJob", Math.round(perJob));
      result.put("memoryUsagePerEntry", Math.round(keyBytes / (double) n));
      result.put("enqueuePerSecond", Math.round(n / seconds));
    } finally {
      client.close();
    }
    return result;
  }

  private static long usedMemory(RedisConnection c) {
    for (String line : c.sync().info("memory").split("\\r?\\n", -1)) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory");
  }
}
