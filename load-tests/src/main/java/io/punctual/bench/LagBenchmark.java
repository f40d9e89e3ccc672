package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.JobSubmissions;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Start lag: jobs are submitted at a fixed rate, each due {@code lead} after its submission, and
 * the lag of each is its actual start minus its {@code runAt} (Punctual: when the handler started,
 * as the worker measured it and recorded it in the attempt's execution row, minus the job's {@code
 * run_at}; a job claimed ahead of its due time, {@code worker.claimAhead}, counts from its
 * handler's start, not from its claim). The same schedule runs through db-scheduler
 * (lock-and-fetch, 20 threads, 100 ms polling) on the same PostgreSQL, whose lag is measured in its
 * task. PostgreSQL runs with fsync and synchronous_commit on.
 *
 * <p>Usage: {@code LagBenchmark [--rate R] [--seconds S] [--lead-ms L] [--workers 1|2] [--json
 * FILE] [--skip-peer] [--claim-ahead-ms A] [--claims-in-flight C]}; defaults 1000 jobs/s for 20 s,
 * 200 ms ahead, one {@code Worker} in this process ({@code --workers}: that many {@code punctual
 * worker} processes instead), {@code worker.claimAhead} at its default ({@code --claim-ahead-ms},
 * in-process only: another value, 0 to claim only due jobs) and {@code worker.claimsInFlight} at
 * its default ({@code --claims-in-flight}, in-process only). A warm-up of half the seconds (at
 * least 10) runs first and is not counted.
 */
public final class LagBenchmark {
  private LagBenchmark() {}

  private static final int TICKS_PER_SECOND = 100;

  public static void main(String[] args) throws Exception {
    int rate = 1_000;
    int seconds = 20;
    int leadMs = 200;
    Path json = null;
    boolean skipPeer = false;
    int workers = 0;
    Duration claimAhead = null;
    Integer claimsInFlight = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--lead-ms" -> leadMs = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        case "--skip-peer" -> skipPeer = true;
        case "--workers" -> workers = Integer.parseInt(args[++i]);
        case "--claim-ahead-ms" -> claimAhead = Duration.ofMillis(Long.parseLong(args[++i]));
        case "--claims-in-flight" -> claimsInFlight = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (workers < 0 || workers > 2) {
      throw new IllegalArgumentException("--workers must be 1 or 2 (absent: in-process)");
    }
    if (workers != 0 && (claimAhead != null || claimsInFlight != null)) {
      throw new IllegalArgumentException(
          "--claim-ahead-ms and --claims-in-flight are for the in-process worker; worker processes"
              + " take settings as -Dbench.processOpts=\"-Ddw.worker.claimAhead=PT0.1S"
              + " -Ddw.worker.claimsInFlight=1\"");
    }
    // 3 s of warm-up left the JIT compiling through the measured seconds (p99 14 ms at 1,000/s
    // after 3 s, 5 ms after 5 s; with a worker process 132 ms after 5 s, 14 ms after 10 s).
    int warmup = Math.max(10, seconds / 2);
    ObjectNode out = BenchSupport.header("lag");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      pg.createDatabaseIfMissing("dbscheduler");
      Map<String, String> postgres = BenchSupport.postgresSettings(pg.jdbcUrl("punctual"));
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s: %d jobs/s for %d s (+%d s warm-up), each due"
              + " %d ms after submit, %s%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          rate,
          seconds,
          warmup,
          leadMs,
          workers == 0 ? "one in-process Worker" : workers + " worker process(es)");
      ObjectNode rssMb = Json.mapper().createObjectNode();
      long[] punctual =
          punctual(
              pg.jdbcUrl("punctual"),
              redis.url(),
              rate,
              seconds,
              warmup,
              leadMs,
              workers,
              rssMb,
              out,
              claimAhead,
              claimsInFlight);
      Percentiles ours = Percentiles.of(punctual);
      print("punctual", ours, punctual.length);
      Percentiles peer = null;
      if (!skipPeer) {
        long[] lags = dbScheduler(pg.jdbcUrl("dbscheduler"), rate, seconds, warmup, leadMs);
        peer = Percentiles.of(lags);
        print("db-scheduler (lock-and-fetch, 20 threads, 100 ms polling)", peer, lags.length);
        System.out.printf(
            Locale.ROOT,
            "ratio db-scheduler / punctual: p50 %.1f, p99 %.1f%n",
            peer.p50 / Math.max(1, ours.p50),
            peer.p99 / Math.max(1, ours.p99));
      }
      out.put("rate", rate);
      out.put("seconds", seconds);
      out.put("leadMs", leadMs);
      out.put("workers", workers == 0 ? "in-process" : Integer.toString(workers));
      out.put("jobs", punctual.length);
      out.putNull("executionsPerSecond");
      out.set("lagMs", ours.toJson());
      out.putNull("submitPerSecond");
      if (peer != null) {
        ObjectNode p = out.putObject("peer");
        p.put("name", "db-scheduler 16.12.0 lock-and-fetch, 20 threads, 100 ms polling");
        p.set("lagMs", peer.toJson());
        out.put("p99RatioPeerOverPunctual", peer.p99 / Math.max(1.0, ours.p99));
      }
      out.set("rssMb", rssMb);
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  private static void print(String who, Percentiles p, int n) {
    System.out.printf(
        Locale.ROOT,
        "  %-58s jobs %6d  lag ms p50 %5.0f  p95 %5.0f  p99 %5.0f  max %5.0f  min %3.0f%n",
        who,
        n,
        p.p50,
        p.p95,
        p.p99,
        p.max,
        p.min);
  }

  /**
   * Where the in-process worker's claims spent their time (whole run, warm-up included): a claim
   * that takes longer than {@code worker.claimAhead} starts its jobs late by the difference.
   */
  private static void printClaimSteps(MetricRegistry metrics) {
    StringBuilder line = new StringBuilder("  claim steps, ms p50/p99/max:");
    for (String step : List.of("redis", "lease", "confirm")) {
      var timer = metrics.getTimers().get("punctual.worker.claim." + step);
      if (timer == null) {
        continue;
      }
      var snap = timer.getSnapshot();
      line.append(
          String.format(
              Locale.ROOT,
              "  %s %.1f/%.1f/%.1f",
              step,
              snap.getMedian() / 1e6,
              snap.get99thPercentile() / 1e6,
              snap.getMax() / 1e6));
    }
    System.out.println(line);
  }

  /**
   * The in-process worker's no-op handler, which also takes each measured job's lag from inside the
   * handler, in microseconds, with the benchmark's own clock: a check on the execution rows' figure
   * (whole milliseconds, the worker's own measure) by the method db-scheduler's lag is taken with.
   */
  static final class HandlerProbe implements JobHandler {
    private final Map<UUID, Instant> due = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> lagsMicros = new ConcurrentLinkedQueue<>();

    void expect(UUID id, Instant runAt) {
      due.put(id, runAt);
    }

    @Override
    public String type() {
      return "noop";
    }

    @Override
    public JobResult handle(JobContext ctx) {
      Instant now = Instant.now();
      Instant runAt = due.remove(ctx.jobId());
      if (runAt != null) {
        lagsMicros.add(ChronoUnit.MICROS.between(runAt, now));
      }
      return JobResult.success();
    }

    void report(ObjectNode out) {
      if (lagsMicros.isEmpty()) {
        return;
      }
      long[] sorted = lagsMicros.stream().mapToLong(Long::longValue).sorted().toArray();
      double p50 = Percentiles.at(sorted, 0.50) / 1000;
      double p99 = Percentiles.at(sorted, 0.99) / 1000;
      double max = sorted[sorted.length - 1] / 1000.0;
      double min = sorted[0] / 1000.0;
      System.out.printf(
          Locale.ROOT,
          "  %-58s jobs %6d  lag ms p50 %5.2f  p99 %5.2f  max %5.2f  min %5.2f%n",
          "punctual, as the handler saw it (check, microseconds)",
          sorted.length,
          p50,
          p99,
          max,
          min);
      ObjectNode n = out.putObject("handlerLagMs");
      n.put("p50", p50);
      n.put("p99", p99);
      n.put("max", max);
      n.put("min", min);
    }
  }

  /**
   * Lag percentiles in milliseconds. {@code min} shows that nothing started before its time (a
   * millisecond below 0 is the resolution of the recorded times, which are whole milliseconds).
   */
  record Percentiles(double p50, double p95, double p99, double max, double min) {
    static Percentiles of(long[] lagsMs) {
      long[] sorted = lagsMs.clone();
      Arrays.sort(sorted);
      return new Percentiles(
          at(sorted, 0.50),
          at(sorted, 0.95),
          at(sorted, 0.99),
          sorted[sorted.length - 1],
          sorted[0]);
    }

    static double at(long[] sorted, double q) {
      return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    ObjectNode toJson() {
      ObjectNode n = Json.mapper().createObjectNode();
      n.put("p50", p50);
      n.put("p95", p95);
      n.put("p99", p99);
      n.put("max", max);
      n.put("min", min);
      return n;
    }
  }

  /**
   * Runs the fixed-rate schedule: {@code submit(count, runAt, measured)} every 10 ms. Up to four
   * submissions are in flight at once, so one slow commit (an fsync on a busy disk) does not hold
   * back the schedule; beyond four the schedule waits (and the run reports the rate it achieved).
   */
  interface Submitter {
    void submit(int count, Instant runAt, boolean measured) throws Exception;
  }

  /** Returns the rate at which the measured seconds' jobs were actually submitted. */
  static double paced(
      String who, int rate, double warmup, double seconds, int leadMs, Submitter submitter)
      throws Exception {
    long tickNanos = 1_000_000_000L / TICKS_PER_SECOND;
    long totalTicks = (long) ((warmup + seconds) * TICKS_PER_SECOND);
    long warmTicks = (long) (warmup * TICKS_PER_SECOND);
    Semaphore inFlight = new Semaphore(4);
    java.util.concurrent.atomic.AtomicReference<Exception> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    ConcurrentLinkedQueue<Long> took = new ConcurrentLinkedQueue<>();
    long start = System.nanoTime();
    long measuredFrom = 0;
    long measuredJobs = 0;
    double owed = 0;
    try {
      for (long tick = 0; tick < totalTicks && failure.get() == null; tick++) {
        long due = start + tick * tickNanos;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        owed += (double) rate / TICKS_PER_SECOND;
        int n = (int) owed;
        owed -= n;
        if (n > 0) {
          Instant runAt = Instant.now().plusMillis(leadMs).truncatedTo(ChronoUnit.MILLIS);
          boolean measured = tick >= warmTicks;
          inFlight.acquire();
          if (measured) {
            measuredFrom = measuredFrom == 0 ? System.nanoTime() : measuredFrom;
            measuredJobs += n;
          }
          pool.execute(
              () -> {
                long t0 = System.nanoTime();
                try {
                  submitter.submit(n, runAt, measured);
                  took.add(System.nanoTime() - t0);
                } catch (Exception e) {
                  failure.compareAndSet(null, e);
                } finally {
                  inFlight.release();
                }
              });
        }
      }
    } finally {
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    long end = System.nanoTime();
    double measuredRate = measuredJobs / ((end - measuredFrom) / 1e9);
    if (measuredRate < rate * 0.95) {
      System.out.printf(
          Locale.ROOT,
          "  note: %s's measured seconds were submitted at %.0f jobs/s, not %d (submissions fell"
              + " behind; the whole schedule took %.1f s instead of %.1f s; one submission of a"
              + " tick's jobs took p50 %.1f ms, p99 %.1f ms, max %.1f ms)%n",
          who,
          measuredRate,
          rate,
          (end - start) / 1e9,
          warmup + seconds,
          quantileMs(took, 0.5),
          quantileMs(took, 0.99),
          quantileMs(took, 1.0));
    }
    return measuredRate;
  }

  private static double quantileMs(ConcurrentLinkedQueue<Long> nanos, double q) {
    long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
  }

  private static long[] punctual(
      String url,
      String redisUrl,
      int rate,
      int seconds,
      int warmup,
      int leadMs,
      int workers,
      ObjectNode rssMb,
      ObjectNode out,
      Duration claimAhead,
      Integer claimsInFlight)
      throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(url, 2)) {
      Migrations.migrate(ds);
    }
    PostgresSettings db = new PostgresSettings(url, "postgres", "");
    // Worker processes use the default key prefix; the in-process worker its own.
    String prefix = workers == 0 ? "lag" : "punctual";
    try (Stores stores =
            new Stores(
                db,
                new RedisSettings(redisUrl, prefix),
                new QueueSettings(),
                Clock.systemUTC(),
                "bench");
        PunctualProcesses processes = new PunctualProcesses(url, redisUrl)) {
      stores.partitions().ensureAhead();
      WorkerSettings settings = new WorkerSettings();
      if (claimAhead != null) {
        settings.claimAhead = claimAhead;
      }
      if (claimsInFlight != null) {
        settings.claimsInFlight = claimsInFlight;
      }
      if (workers == 0) {
        out.put("claimAheadMs", settings.claimAhead.toMillis());
        out.put("claimsInFlight", settings.claimsInFlight);
      }
      MetricRegistry metrics = new MetricRegistry();
      AtomicInteger measured = new AtomicInteger();
      Worker worker = null;
      List<PunctualProcesses.Role> roles = List.of();
      HandlerProbe probe = new HandlerProbe();
      if (workers == 0) {
        worker =
            new Worker(
                stores, settings, BenchSupport.builtIns(stores, settings).register(probe), metrics);
        worker.start();
      } else {
        roles = processes.startWorkers(workers);
      }
      try {
        paced(
            "punctual",
            rate,
            warmup,
            seconds,
            leadMs,
            (count, runAt, counted) -> {
              List<NewJob> jobs = new ArrayList<>(count);
              List<String> tags = List.of(counted ? "measured" : "warm-up");
              for (int i = 0; i < count; i++) {
                jobs.add(BenchSupport.noop(runAt, tags));
              }
              // the API's path: one transaction, then the Redis enqueue
              List<QueueEntry> entries = new ArrayList<>(count);
              for (JobSubmissions.Submitted s : stores.submissions().submit(jobs)) {
                if (counted) {
                  probe.expect(s.job().id(), s.job().runAt());
                }
                entries.add(
                    new QueueEntry(
                        s.job().id(), s.job().namespace(), s.job().priority(), s.job().runAt()));
              }
              stores.queue().enqueue(entries);
              if (counted) {
                measured.addAndGet(count);
              }
            });
        int all = (int) (measured.get() + (long) rate * warmup);
        var succeeded = metrics.meter("punctual.worker.succeeded");
        List<PunctualProcesses.Role> watched = roles;
        BenchSupport.waitFor(
            () -> {
              if (watched.isEmpty()) {
                return succeeded.getCount() >= all - rate;
              }
              // A look serialises every metric of each worker (milliseconds of its CPU) while
              // the run's last jobs still start: rarely, so that it does not add to their lag.
              Thread.sleep(250);
              return PunctualProcesses.meterCount(watched, "punctual.worker.succeeded")
                  >= all - rate;
            },
            Duration.ofMinutes(5));
        BenchSupport.waitFor(
            () ->
                count(
                        stores,
                        "SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED' AND 'measured' = ANY(tags)")
                    >= measured.get(),
            Duration.ofMinutes(5));
      } finally {
        if (worker != null) {
          worker.close();
          double[] rss = BenchSupport.rssMb(ProcessHandle.current().pid());
          ObjectNode n = rssMb.putObject("benchmark-process");
          n.put("peak", Math.round(rss[1]));
          n.put("end", Math.round(rss[0]));
          n.put("note", "in-process worker: this JVM also submitted the jobs");
          probe.report(out);
          printClaimSteps(metrics);
        } else {
          processes.close();
          rssMb.setAll(processes.rssJson());
          System.out.println("  " + processes.rssLine());
        }
      }
      return stores
          .database()
          .jdbi()
          .withHandle(
              h ->
                  h.createQuery(
                          "SELECT round(extract(epoch FROM e.started_at - j.run_at) * 1000)::bigint"
                              + " FROM jobs j JOIN job_executions e ON e.job_id = j.id"
                              + " AND e.job_scheduled_at = j.scheduled_at AND e.attempt = 1"
                              + " WHERE 'measured' = ANY(j.tags)")
                      .mapTo(Long.class)
                      .list())
          .stream()
          .mapToLong(Long::longValue)
          .toArray();
    }
  }

  private static long count(Stores stores, String sql) {
    return stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  private static long[] dbScheduler(String url, int rate, int seconds, int warmup, int leadMs)
      throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(url, 25)) {
      BenchSupport.createDbSchedulerTable(ds);
      ConcurrentLinkedQueue<Long> lags = new ConcurrentLinkedQueue<>();
      AtomicInteger done = new AtomicInteger();
      OneTimeTask<Void> task =
          Tasks.oneTime("noop")
              .execute(
                  (instance, ctx) -> {
                    long lag =
                        Duration.between(ctx.getExecution().executionTime, Instant.now())
                            .toMillis();
                    if (instance.getId().startsWith("m-")) {
                      lags.add(lag);
                    }
                    done.incrementAndGet();
                  });
      Scheduler scheduler =
          Scheduler.create(ds, task)
              .threads(20)
              .pollUsingLockAndFetch(0.5, 1.0)
              .pollingInterval(Duration.ofMillis(100))
              .build();
      scheduler.start();
      AtomicInteger ids = new AtomicInteger();
      AtomicInteger measured = new AtomicInteger();
      paced(
          "db-scheduler",
          rate,
          warmup,
          seconds,
          leadMs,
          (count, runAt, counted) -> {
            for (int i = 0; i < count; i++) {
              scheduler.schedule(
                  task.instance((counted ? "m-" : "w-") + ids.incrementAndGet()), runAt);
            }
            if (counted) {
              measured.addAndGet(count);
            }
          });
      BenchSupport.waitFor(() -> lags.size() >= measured.get(), Duration.ofMinutes(5));
      scheduler.stop();
      return lags.stream().mapToLong(Long::longValue).toArray();
    }
  }
}
