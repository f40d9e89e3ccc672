package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.Backoff;
import io.punctual.model.JobId;
import io.punctual.planner.PlannerSettings;
import io.punctual.planner.plan.Planner;
import io.punctual.planner.plan.PlannerLiveness;
import io.punctual.planner.plan.PlannerWiring;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.expression.DstPolicy;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The planner with N active schedules of mixed expressions (default 100,000) on the embedded
 * PostgreSQL 18 (fsync and synchronous_commit on) and Redis.
 *
 * <ol>
 *   <li><b>Throughput</b>: every schedule is due at once (as when they are all created together, or
 *       planners restart one after the other in a deployment) while planners are up; P planners
 *       (default 1) plan them all, materialising each one's occurrences of the next minute as jobs
 *       in PostgreSQL and Redis. Reported: schedules and occurrences per second, and misfires,
 *       which must be 0: a long pass is late, not down. Then a pass with nothing due: the cost of a
 *       pass when 100,000 schedules are active but none is due.
 *   <li><b>Fire lag</b>: from scratch again, the planner loop and a worker run; after the first
 *       pass and a warm-up, for S seconds, with every schedule firing (about 1,500 jobs/s) plus 20
 *       schedules firing every second. Reported: the handler's start (its execution row) minus
 *       {@code occurrence_at} for the every-second schedules and for the every-minute ones (40 % of
 *       all, firing together at each minute), and misfires (0 expected here too).
 * </ol>
 *
 * <p>Usage: {@code PlannerBenchmark [--schedules N] [--planners P] [--seconds S] [--warmup W]
 * [--json FILE]}; defaults 100000, 1, 120, 60.
 */
public final class PlannerBenchmark {
  private PlannerBenchmark() {}

  /** One kind of schedule in the mix and its share (out of 20). */
  private record Kind(String label, String cron, Duration every, String zone, int share) {}

  private static final List<Kind> MIX =
      List.of(
          new Kind("every minute", "* * * * *", null, "UTC", 8),
          new Kind("every 5 min, Paris", "*/5 * * * *", null, "Europe/Paris", 3),
          new Kind("hourly, New York", "0 * * * *", null, "America/New_York", 2),
          new Kind("weekdays 09:00, Paris", "0 9 * * MON-FRI", null, "Europe/Paris", 2),
          new Kind("every PT30S", null, Duration.ofSeconds(30), "UTC", 2),
          new Kind("Quartz every 10 s", "*/10 * * * * ?", null, "UTC", 1),
          new Kind("Quartz 3rd Friday 12:00, Tokyo", "0 0 12 ? * 6#3", null, "Asia/Tokyo", 1),
          new Kind("Quartz last day 18:30, Sydney", "0 30 18 L * ?", null, "Australia/Sydney", 1));

  private static final int PROBES = 20;

  public static void main(String[] args) throws Exception {
    int schedules = 100_000;
    int planners = 1;
    int seconds = 120;
    int warmup = 60;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--schedules" -> schedules = Integer.parseInt(args[++i]);
        case "--planners" -> planners = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    boolean pgStats = ServerStatistics.PG;
    try (EmbeddedPostgresServer pg =
            EmbeddedPostgresServer.start(
                null,
                true,
                pgStats ? Map.of("shared_preload_libraries", "pg_stat_statements") : Map.of());
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      try (HikariDataSource ds = BenchSupport.dataSource(url, 2)) {
        Migrations.migrate(ds);
      }
      Map<String, String> postgres = BenchSupport.postgresSettings(url);
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s: %d active schedules, %d planner(s)%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          schedules,
          planners);
      PostgresSettings db = new PostgresSettings(url, "postgres", "");
      db.maxPoolSize = 8;
      RedisSettings redisSettings = new RedisSettings(redis.url(), "plan");
      PlannerSettings settings = new PlannerSettings();

      if (pgStats) {
        ServerStatistics.resetStatements(url);
      }
      Throughput throughput = throughput(db, redisSettings, settings, schedules, planners);
      if (pgStats) {
        ServerStatistics.printStatements(url);
      }
      System.out.printf(
          Locale.ROOT,
          "%n  %-44s %10s%n  %-44s %,10d%n  %-44s %,10d%n  %-44s %10.1f%n  %-44s %,10.0f%n"
              + "  %-44s %,10.0f%n  %-44s %10.1f%n  %-44s %,10d%n",
          "throughput (all due at once, look-ahead " + settings.lookAhead + ")",
          "",
          "schedules planned",
          throughput.schedules,
          "occurrences materialised (jobs)",
          throughput.jobs,
          "seconds",
          throughput.seconds,
          "schedules / s",
          throughput.schedules / throughput.seconds,
          "occurrences / s",
          throughput.jobs / throughput.seconds,
          "pass with nothing due (ms)",
          throughput.idlePassMs,
          "misfires (0: no planner was down)",
          throughput.misfires);
      warnIfMisfires("throughput", throughput.misfires);

      Lag lag = lag(db, redisSettings, settings, schedules, seconds, warmup);
      System.out.printf(
          Locale.ROOT,
          "%n  fire lag (handler start - occurrence_at), %d s after the first pass + %d s, worker running%n",
          seconds,
          warmup);
      print("every second (" + PROBES + " schedules)", lag.everySecond);
      print("every minute (" + lag.minuteSchedules + " schedules, same second)", lag.everyMinute);
      System.out.printf(
          Locale.ROOT,
          "  %-44s %,10.0f  (pass p50 %.1f ms, p99 %.1f ms, %d passes)%n",
          "steady state: occurrences / s",
          lag.plannedPerSecond,
          lag.passP50Ms,
          lag.passP99Ms,
          lag.passes);
      System.out.printf(
          Locale.ROOT, "  %-44s %,10d%n", "jobs of the window materialised late", lag.lateJobs);
      System.out.printf(
          Locale.ROOT,
          "  %-44s %,10d  (first pass and warm-up %,d)%n",
          "misfires in the window (0: no planner was down)",
          lag.windowMisfires,
          lag.firstMisfires);
      warnIfMisfires("fire lag", lag.firstMisfires + lag.windowMisfires);

      if (json != null) {
        ObjectNode out = Json.mapper().createObjectNode();
        out.put("scenario", "planner");
        out.put("schedules", schedules);
        out.put("planners", planners);
        out.put("lookAhead", settings.lookAhead.toString());
        ObjectNode t = out.putObject("throughput");
        t.put("schedules", throughput.schedules);
        t.put("jobs", throughput.jobs);
        t.put("seconds", throughput.seconds);
        t.put("schedulesPerSecond", throughput.schedules / throughput.seconds);
        t.put("occurrencesPerSecond", throughput.jobs / throughput.seconds);
        t.put("idlePassMs", throughput.idlePassMs);
        t.put("misfires", throughput.misfires);
        ObjectNode l = out.putObject("fireLag");
        l.put("seconds", seconds);
        l.put("warmup", warmup);
        if (lag.everySecond != null) {
          l.set("everySecondMs", lag.everySecond.toJson());
        }
        if (lag.everyMinute != null) {
          l.set("everyMinuteMs", lag.everyMinute.toJson());
        }
        l.put("steadyOccurrencesPerSecond", lag.plannedPerSecond);
        l.put("passP50Ms", lag.passP50Ms);
        l.put("passP99Ms", lag.passP99Ms);
        l.put("lateMaterialisedJobs", lag.lateJobs);
        l.put("misfires", lag.windowMisfires);
        l.put("firstPassMisfires", lag.firstMisfires);
        ObjectNode pgNode = out.putObject("postgres");
        postgres.forEach(pgNode::put);
        out.put("jdk", Runtime.version().toString());
        out.put("cores", Runtime.getRuntime().availableProcessors());
        Files.writeString(
            json, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
        System.out.println("wrote " + json);
      }
    }
  }

  private static void print(String what, Lags lags) {
    if (lags == null) {
      System.out.printf(Locale.ROOT, "  %-44s no job in the window%n", what);
      return;
    }
    LagBenchmark.Percentiles p = lags.percentiles();
    System.out.printf(
        Locale.ROOT,
        "  %-44s jobs %7d  lag ms p50 %5.0f  p95 %5.0f  p99 %5.0f  max %5.0f  min %3.0f%n",
        what,
        lags.jobs(),
        p.p50(),
        p.p95(),
        p.p99(),
        p.max(),
        p.min());
  }

  /**
   * No planner is ever down here: the benchmark beats for one whenever none is planning (see {@link
   * #insertSchedules}), as running planners would. A misfire means a long pass was taken for an
   * outage.
   */
  private static void warnIfMisfires(String phase, long misfires) {
    if (misfires > 0) {
      System.out.printf(
          Locale.ROOT,
          "  WARNING: %,d misfires in the %s phase, where no planner was down: a bug%n",
          misfires,
          phase);
    }
  }

  private record Throughput(
      int schedules, long jobs, double seconds, double idlePassMs, long misfires) {}

  private static Throughput throughput(
      PostgresSettings db,
      RedisSettings redis,
      PlannerSettings settings,
      int schedules,
      int planners)
      throws Exception {
    List<Stores> stores = new ArrayList<>();
    try {
      for (int i = 0; i < planners; i++) {
        stores.add(new Stores(db, redis, new QueueSettings(), Clock.systemUTC(), "bench-" + i));
      }
      Stores first = stores.get(0);
      first.partitions().ensureAhead();
      List<Planner> all = new ArrayList<>();
      for (Stores s : stores) {
        all.add(planner(s, settings, new MetricRegistry()));
      }
      // Warm-up (not counted): the same work on a fifth of the schedules, then a clean slate. On 2
      // cores the JIT compiler alone takes a core for the first seconds.
      int warm = Math.max(1_000, schedules / 5);
      System.out.printf(Locale.ROOT, "warm-up: planning %,d schedules...%n", warm);
      PlannerLiveness alive =
          new PlannerLiveness(first.database().jdbi(), settings.misfireThreshold);
      insertSchedules(first, alive, warm, 0, Instant.now().truncatedTo(ChronoUnit.MILLIS));
      for (Planner p : all) {
        p.runOnce();
      }
      first.database().jdbi().useHandle(h -> h.execute("TRUNCATE jobs, schedules CASCADE"));
      first.redis().sync().flushall();

      System.out.printf(Locale.ROOT, "inserting %,d schedules...%n", schedules);
      insertSchedules(first, alive, schedules, 0, Instant.now().truncatedTo(ChronoUnit.MILLIS));
      long start = System.nanoTime();
      List<CompletableFuture<Planner.Pass>> passes = new ArrayList<>();
      for (Planner p : all) {
        passes.add(CompletableFuture.supplyAsync(p::runOnce));
      }
      int planned = 0;
      long jobs = 0;
      long misfires = 0;
      for (CompletableFuture<Planner.Pass> f : passes) {
        Planner.Pass pass = f.get();
        planned += pass.schedules();
        jobs += pass.jobs();
        misfires += pass.misfires();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      // A pass when 100,000 schedules are active and none is due: a few index probes.
      long idleStart = System.nanoTime();
      Planner.Pass idle = all.get(0).runOnce();
      double idleMs = (System.nanoTime() - idleStart) / 1e6;
      if (idle.schedules() > PROBES) {
        System.out.printf("note: %d schedules were due again already%n", idle.schedules());
      }
      return new Throughput(planned, jobs, seconds, idleMs, misfires + idle.misfires());
    } finally {
      stores.forEach(Stores::close);
    }
  }

  /** Lags of one group of schedules: how many jobs, and their percentiles. */
  private record Lags(int jobs, LagBenchmark.Percentiles percentiles) {
    ObjectNode toJson() {
      ObjectNode n = percentiles.toJson();
      n.put("jobs", jobs);
      return n;
    }
  }

  /** Lag percentiles and the planner's steady state while everything fires. */
  private record Lag(
      Lags everySecond,
      Lags everyMinute,
      int minuteSchedules,
      double plannedPerSecond,
      double passP50Ms,
      double passP99Ms,
      long lateJobs,
      long passes,
      long firstMisfires,
      long windowMisfires) {}

  private static Lag lag(
      PostgresSettings db,
      RedisSettings redis,
      PlannerSettings settings,
      int schedules,
      int seconds,
      int warmup)
      throws Exception {
    try (Stores stores = new Stores(db, redis, new QueueSettings(), Clock.systemUTC(), "lag")) {
      System.out.printf(
          Locale.ROOT, "%nstarting over: %,d schedules + %d every second...%n", schedules, PROBES);
      stores.database().jdbi().useHandle(h -> h.execute("TRUNCATE jobs, schedules CASCADE"));
      stores.redis().sync().flushall();
      Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      PlannerLiveness alive =
          new PlannerLiveness(stores.database().jdbi(), settings.misfireThreshold);
      int minute = insertSchedules(stores, alive, schedules, PROBES, now);
      MetricRegistry metrics = new MetricRegistry();
      WorkerSettings workerSettings = new WorkerSettings();
      Planner planner = planner(stores, settings, metrics);
      Instant from;
      Instant to;
      try (Worker worker =
          new Worker(
              stores, workerSettings, BenchSupport.builtIns(stores, workerSettings), metrics)) {
        worker.start();
        planner.start();
        // The first pass plans every schedule at once (the throughput case above); the warm-up
        // counts from its end.
        Timer firstPass = metrics.timer("punctual.planner.pass");
        BenchSupport.waitFor(() -> firstPass.getCount() >= 1, Duration.ofMinutes(10));
        from = Instant.now().plusSeconds(warmup).truncatedTo(ChronoUnit.SECONDS);
        to = from.plusSeconds(seconds);
        // A fresh planner (same database, so it carries on where the first one stopped) with
        // fresh metrics, so the window's passes are not mixed with the first, cold one.
        planner.close();
        MetricRegistry window = new MetricRegistry();
        Planner measured = planner(stores, settings, window);
        measured.start();
        sleepUntil(from);
        long plannedBefore = window.meter("punctual.planner.occurrences.planned").getCount();
        sleepUntil(to);
        long planned =
            window.meter("punctual.planner.occurrences.planned").getCount() - plannedBefore;
        Timer passTimer = window.timer("punctual.planner.pass");
        Snapshot passes = passTimer.getSnapshot();
        long passCount = passTimer.getCount();
        measured.close();
        long firstMisfires = metrics.meter("punctual.planner.misfires").getCount();
        long windowMisfires = window.meter("punctual.planner.misfires").getCount();
        // Let every occurrence of the window start.
        BenchSupport.waitFor(() -> pendingUntil(stores, to) == 0, Duration.ofMinutes(5));
        return new Lag(
            lags(stores, "probe", from, to),
            lags(stores, "minute", from, to),
            minute,
            planned / (double) seconds,
            passes.getMedian() / 1e6,
            passes.get99thPercentile() / 1e6,
            lateMaterialised(stores, from, to),
            passCount,
            firstMisfires,
            windowMisfires);
      }
    }
  }

  private static Planner planner(Stores stores, PlannerSettings settings, MetricRegistry metrics) {
    return PlannerWiring.planner(stores, settings, metrics);
  }

  private static Lags lags(Stores stores, String tag, Instant from, Instant to) {
    long[] lags =
        stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT round(extract(epoch FROM e.started_at - j.occurrence_at)"
                                + " * 1000)::bigint FROM jobs j JOIN job_executions e"
                                + " ON e.job_id = j.id AND e.job_scheduled_at = j.scheduled_at"
                                + " AND e.attempt = 1"
                                + " WHERE j.tags @> ARRAY[CAST(:tag AS text)]"
                                + " AND j.occurrence_at >= :from AND j.occurrence_at < :to")
                        .bind("tag", tag)
                        .bind("from", from)
                        .bind("to", to)
                        .mapTo(Long.class)
                        .list())
            .stream()
            .mapToLong(Long::longValue)
            .toArray();
    return lags.length == 0 ? null : new Lags(lags.length, LagBenchmark.Percentiles.of(lags));
  }

  /**
   * Inserts {@code n} schedules of the mix plus {@code probes} firing every second, all due for
   * planning now, in batches (bulk: 100,000 API calls would measure the API, not the planner).
   * Returns how many fire every minute.
   *
   * <p>It beats for a planner ({@code alive}) before the first batch and after each: running
   * planners beat at every pass, and a planner silent for the seconds these inserts take would look
   * down, so the benchmark would measure misfires instead of planning.
   */
  private static int insertSchedules(
      Stores stores, PlannerLiveness alive, int n, int probes, Instant now) {
    alive.beat(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    int total = n + probes;
    int minute = 0;
    int batch = 5_000;
    String backoff = Json.write(Backoff.DEFAULT);
    for (int from = 0; from < total; from += batch) {
      int size = Math.min(batch, total - from);
      java.util.UUID[] ids = new java.util.UUID[size];
      String[] names = new String[size];
      String[] crons = new String[size];
      Long[] everyMs = new Long[size];
      String[] zones = new String[size];
      String[] tags = new String[size];
      Long[] next = new Long[size];
      for (int j = 0; j < size; j++) {
        int i = from + j;
        Kind kind = i >= n ? new Kind("probe", null, Duration.ofSeconds(1), "UTC", 0) : kindOf(i);
        ids[j] = JobId.forScheduledTime(now);
        names[j] = "bench-" + i;
        crons[j] = kind.cron();
        everyMs[j] = kind.every() == null ? null : kind.every().toMillis();
        zones[j] = kind.zone();
        tags[j] =
            i >= n
                ? "probe"
                : kind.cron() != null && kind.cron().equals("* * * * *") ? "minute" : "other";
        minute += tags[j].equals("minute") ? 1 : 0;
        next[j] =
            ScheduleDefinition.fireTimes(
                    kind.cron(),
                    kind.every(),
                    ZoneId.of(kind.zone()),
                    DstPolicy.DEFAULT,
                    null,
                    null,
                    now)
                .firstFrom(now)
                .orElseThrow()
                .toEpochMilli();
      }
      stores
          .database()
          .jdbi()
          .useHandle(
              h ->
                  h.createUpdate(
                          "INSERT INTO schedules (id, namespace, name, cron, every_ms, time_zone,"
                              + " type, max_attempts, backoff, tags, status, next_fire_at, plan_at,"
                              + " created_at, updated_at)"
                              + " SELECT s.id, 'default', s.name, s.cron, s.every_ms, s.zone, 'noop',"
                              + " 3, CAST(:backoff AS jsonb), ARRAY[s.tag], 'ACTIVE',"
                              + " punctual_ms(s.next_ms),"
                              + " CAST(:now AS timestamptz), :now, :now"
                              + " FROM unnest(:ids, :names, :crons, :everyMs, :zones, :tags, :next)"
                              + " AS s(id, name, cron, every_ms, zone, tag, next_ms)")
                      .bind("ids", ids)
                      .bind("names", names)
                      .bind("crons", crons)
                      .bind("everyMs", everyMs)
                      .bind("zones", zones)
                      .bind("tags", tags)
                      .bind("next", next)
                      .bind("backoff", backoff)
                      .bind("now", now)
                      .execute());
      alive.beat(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }
    return minute;
  }

  private static Kind kindOf(int i) {
    int slot = i % 20;
    for (Kind k : MIX) {
      if (slot < k.share()) {
        return k;
      }
      slot -= k.share();
    }
    throw new IllegalStateException("shares must add up to 20");
  }

  /** Jobs of the window created after their fire time: occurrences the planner was late for. */
  private static long lateMaterialised(Stores stores, Instant from, Instant to) {
    return stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM jobs WHERE occurrence_at >= :from"
                            + " AND occurrence_at < :to AND created_at > occurrence_at")
                    .bind("from", from)
                    .bind("to", to)
                    .mapTo(Long.class)
                    .one());
  }

  private static long pendingUntil(Stores stores, Instant to) {
    return stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM jobs WHERE occurrence_at < :to AND status = 'PENDING'")
                    .bind("to", to)
                    .mapTo(Long.class)
                    .one());
  }

  private static void sleepUntil(Instant t) throws InterruptedException {
    long ms = Duration.between(Instant.now(), t).toMillis();
    if (ms > 0) {
      TimeUnit.MILLISECONDS.sleep(ms);
    }
  }

  static {
    // Keep the mix honest: shares out of 20.
    if (MIX.stream().mapToInt(Kind::share).sum() != 20) {
      throw new IllegalStateException(
          "shares must add up to 20: " + Arrays.toString(MIX.toArray()));
    }
  }
}
