package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.queue.Stores;
import io.punctual.store.stats.StatsRollup;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * The scale benchmark's store: N jobs bulk-loaded into PostgreSQL over the last {@value #DAYS_BACK}
 * days and the next {@value #DAYS_AHEAD}, one {@code job_executions} row per finished attempt, the
 * idempotency keys, and the statistics rollup of that history (minutes, then hours and days as the
 * reaper fills them). A store kept with {@code --store} remembers how many jobs it holds, and is
 * not loaded again.
 */
final class ScaleStore {
  private ScaleStore() {}

  static final int DAYS_BACK = 30;
  static final int DAYS_AHEAD = 3;

  static ObjectNode load(Stores stores, long jobs) throws Exception {
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
    // A fixture, written here rather than in a .sql resource: it sets statuses directly, outside
    // the job state machine, which TransitionSqlTest rightly refuses in any resource.
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
        p.setString(1, Json.write(io.punctual.model.Backoff.DEFAULT));
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
  static long loaded(Stores stores) throws Exception {
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
    String rollupSql = SqlText.resource("/io/punctual/store/stats/StatsRollup/rollup.sql");
    String load =
        SqlText.resource("/io/punctual/bench/scale-rollup.sql")
            .replace("/*rollup*/", rollupSql.strip());
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
              + SqlText.timestamp(hour.plus(Duration.ofMinutes(1)))
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
      s.execute("UPDATE job_stats_rollup SET done_until = " + SqlText.timestamp(now));
      return rows;
    }
  }

  /**
   * Fills job_stats_hours from the loaded minutes as the reaper does on a store migrated with its
   * minutes already there ({@link StatsRollup#fillHours()}, a day per pass, until a pass has
   * nothing left to do): after a fresh load, and on a store kept (--store) by a release without the
   * hours. Nothing to do when they are filled already. Returns the hour rows written.
   */
  static long fillStatsHours(Stores stores) throws Exception {
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
    return sql.replace(":start", SqlText.timestamp(start)).replace(":end", SqlText.timestamp(end));
  }

  /** The rows of one hour of job_stats_minutes: their count and a digest of their values. */
  private static String digest(Statement s, Instant hour) throws Exception {
    try (ResultSet rs =
        s.executeQuery(
            "SELECT count(*), md5(string_agg(t::text, ',' ORDER BY namespace, minute, type))"
                + " FROM job_stats_minutes t WHERE minute >= "
                + SqlText.timestamp(hour)
                + " AND minute < "
                + SqlText.timestamp(hour.plus(Duration.ofHours(1))))) {
      rs.next();
      if (rs.getLong(1) == 0) {
        throw new IllegalStateException("no statistics rows for " + hour + " to compare");
      }
      return rs.getLong(1) + " rows, md5 " + rs.getString(2);
    }
  }
}
