package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.Stores;
import io.punctual.common.json.Json;
import io.punctual.common.stats.StatsRollup;
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
 * days and the next {@value #DAYS_AHEAD} ({@code scale-jobs.sql}), one {@code job_executions} row
 * per finished attempt ({@code scale-executions.sql}), the idempotency keys, and the statistics
 * rollup of that history (minutes, then hours and days as the reaper fills them). A store kept with
 * {@code --store} remembers how many jobs it holds, and is not loaded again.
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
    // scale-jobs.sql: job g at from + (g * 7919 mod N) / N of the span, its status from its time.
    String insertJobs = SqlText.resource("/io/punctual/bench/scale-jobs.sql");
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
    String insertExecutions = SqlText.resource("/io/punctual/bench/scale-executions.sql");
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
    String rollupSql = SqlText.resource("/io/punctual/common/stats/StatsRollup/rollup.sql");
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
