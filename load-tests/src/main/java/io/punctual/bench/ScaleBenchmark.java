package io.punctual.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.embedded.EmbeddedPostgresServer;
import io.punctual.common.embedded.EmbeddedRedisServer;
import io.punctual.common.job.Priority;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.queue.RedisKeys;
import io.punctual.common.store.JobStore.QueueEntry;
import io.punctual.common.store.Migrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The store at scale: N jobs bulk-loaded into PostgreSQL (durable) over the last 30 days and the
 * next 3 (50 namespaces, 20 types; about 90% SUCCEEDED, 5% FAILED, 1% CANCELLED, the future ones
 * PENDING, a few hundred RUNNING), then the queries users run, each timed (median of 5) and
 * explained. Then the Redis memory one queued job costs.
 *
 * <p>Usage: {@code ScaleBenchmark [--jobs N]} (default 10,000,000).
 */
public final class ScaleBenchmark {
  private ScaleBenchmark() {}

  private static final int DAYS_BACK = 30;
  private static final int DAYS_AHEAD = 3;

  public static void main(String[] args) throws Exception {
    long jobs = 10_000_000;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--jobs")) {
        jobs = Long.parseLong(args[++i]);
      } else {
        throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    try (EmbeddedPostgresServer pg =
            EmbeddedPostgresServer.start(
                null, true, Map.of("shared_buffers", "512MB", "max_wal_size", "4GB"));
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      System.out.printf(
          Locale.ROOT,
          "%s shared_buffers=512MB, %d cores, JDK %s, %,d jobs%n",
          BenchSupport.describe(BenchSupport.postgresSettings(url)),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          jobs);
      try (HikariDataSource ds = BenchSupport.dataSource(url, 2)) {
        Migrations.migrate(ds);
        load(ds, jobs);
        queries(ds);
      }
      redisMemory(redis.url());
    }
  }

  private static void load(HikariDataSource ds, long jobs) throws Exception {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    long t0 = System.nanoTime();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT punctual_ensure_partitions(CURRENT_DATE - "
              + (DAYS_BACK + 1)
              + ", CURRENT_DATE + "
              + (DAYS_AHEAD + 1)
              + ")");
    }
    long chunk = 1_000_000;
    long span = (DAYS_BACK + DAYS_AHEAD) * 86_400_000L;
    long from = today.minusDays(DAYS_BACK).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    long nowMs = Instant.now().toEpochMilli();
    // Statuses follow the time: the past is final (or, rarely, still RUNNING), the future PENDING.
    String insert =
        """
        INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,
                          attempt, max_attempts, backoff, created_at, updated_at, started_at,
                          finished_at, heartbeat_at, worker_id, last_error)
        SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
               punctual_ms(ms), 'tenant-' || (('x' || substr(h, 20, 4))::bit(16)::int % 50),
               'type-' || (('x' || substr(h, 24, 4))::bit(16)::int % 20), '{}'::jsonb, (g % 4)::smallint,
               st, punctual_ms(ms), CASE WHEN st = 'PENDING' THEN 0 ELSE 1 END, 3,
               '{"strategy":"fixed","delay":"PT1S"}'::jsonb, punctual_ms(ms), punctual_ms(ms),
               CASE WHEN st = 'PENDING' THEN NULL ELSE punctual_ms(ms) END,
               CASE WHEN st IN ('PENDING', 'RUNNING') THEN NULL ELSE punctual_ms(ms + 50) END,
               CASE WHEN st = 'RUNNING' THEN punctual_ms(ms + 1000) END,
               CASE WHEN st = 'RUNNING' THEN 'worker-' || (g % 7) END,
               CASE WHEN st = 'FAILED' THEN 'planned failure ' || (g % 13) END
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
    try (Connection c = ds.getConnection();
        PreparedStatement p = c.prepareStatement(insert)) {
      for (long start = 1; start <= jobs; start += chunk) {
        long end = Math.min(jobs, start + chunk - 1);
        p.setLong(1, nowMs);
        p.setLong(2, from);
        p.setLong(3, jobs);
        p.setLong(4, span);
        p.setLong(5, jobs);
        p.setLong(6, start);
        p.setLong(7, end);
        p.executeUpdate();
        System.out.printf(Locale.ROOT, "  loaded %,d jobs%n", end);
      }
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE jobs");
    }
    System.out.printf(
        Locale.ROOT, "load + VACUUM ANALYZE: %.0f s%n", (System.nanoTime() - t0) / 1e9);
  }

  private static void queries(HikariDataSource ds) throws Exception {
    Map<String, String> queries = new LinkedHashMap<>();
    queries.put(
        "failed jobs from yesterday (one tenant)",
        "SELECT id, type, last_error, finished_at FROM jobs WHERE namespace = 'tenant-7'"
            + " AND status = 'FAILED' AND scheduled_at >= CURRENT_DATE - 1"
            + " AND scheduled_at < CURRENT_DATE ORDER BY id DESC LIMIT 100");
    queries.put(
        "pending jobs of type X for tenant Y",
        "SELECT id, run_at FROM jobs WHERE namespace = 'tenant-7' AND type = 'type-7'"
            + " AND status = 'PENDING' ORDER BY run_at LIMIT 100");
    queries.put(
        "success rate by type over 7 days",
        "SELECT type, count(*) FILTER (WHERE status = 'SUCCEEDED')::float8"
            + " / count(*) FILTER (WHERE status IN ('SUCCEEDED', 'FAILED')) AS success_rate,"
            + " count(*) AS jobs FROM jobs WHERE scheduled_at >= now() - interval '7 days'"
            + " AND scheduled_at < now() GROUP BY type ORDER BY type");
    queries.put(
        "jobs stuck RUNNING for over an hour",
        "SELECT id, worker_id, started_at, heartbeat_at FROM jobs WHERE status = 'RUNNING'"
            + " AND heartbeat_at IS NOT NULL AND started_at < now() - interval '1 hour'"
            + " ORDER BY started_at LIMIT 100");
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (var q : queries.entrySet()) {
        double[] ms = new double[5];
        int rows = 0;
        for (int i = 0; i < ms.length; i++) {
          long t = System.nanoTime();
          try (ResultSet rs = s.executeQuery(q.getValue())) {
            rows = 0;
            while (rs.next()) {
              rows++;
            }
          }
          ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        System.out.printf(
            Locale.ROOT,
            "%n%-42s median %8.1f ms (min %.1f, max %.1f), %d rows%n",
            q.getKey(),
            ms[2],
            ms[0],
            ms[4],
            rows);
        try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + q.getValue())) {
          while (rs.next()) {
            System.out.println("    " + rs.getString(1));
          }
        }
      }
    }
  }

  private static void redisMemory(String url) {
    RedisClient client = RedisClient.create(url);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      long before = usedMemory(c);
      ReadyQueue queue = new ReadyQueue(c, new RedisKeys("mem"), new QueueSettings());
      int n = 100_000;
      List<QueueEntry> batch = new ArrayList<>();
      Instant base = Instant.now().plusSeconds(3600);
      for (int i = 0; i < n; i++) {
        batch.add(
            new QueueEntry(UUID.randomUUID(), "default", Priority.NORMAL, base.plusMillis(i)));
        if (batch.size() == 1_000) {
          queue.enqueue(batch);
          batch.clear();
        }
      }
      long after = usedMemory(c);
      System.out.printf(
          Locale.ROOT,
          "%nRedis memory per queued job: %.0f bytes (%,d jobs queued, used_memory %,d -> %,d)%n",
          (after - before) / (double) n,
          n,
          before,
          after);
    } finally {
      client.shutdown();
    }
  }

  private static long usedMemory(StatefulRedisConnection<String, String> c) {
    for (String line : c.sync().info("memory").split("\\r?\\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory");
  }
}
