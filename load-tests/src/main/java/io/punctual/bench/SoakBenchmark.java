package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.JobSubmissions;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Memory over a long run: one {@code punctual worker} process runs no-op jobs submitted at a steady
 * rate (the API's path: one transaction, then the Redis enqueue; each due {@code lead} after its
 * submission) for some minutes, while its resident set (VmRSS) and its heap after the last
 * collection are sampled every few seconds. After a warm-up, RSS must stay flat: the run reports
 * RSS at the end of the warm-up, at the end and its maximum, and the slope of RSS against jobs run
 * (MB per million jobs, least squares), and passes when RSS grew by less than 5% over the measured
 * part or the slope is under 20 MB per million jobs.
 *
 * <p>Usage: {@code SoakBenchmark [--rate R] [--minutes M] [--warmup-minutes W] [--lead-ms L]
 * [--sample-seconds S] [--json FILE]}; defaults 1,000 jobs/s for 10 minutes, of which the first 2
 * are warm-up, jobs due 200 ms after submission, a sample every 5 s.
 */
public final class SoakBenchmark {
  private SoakBenchmark() {}

  /** One sample: seconds since start, jobs succeeded so far, RSS and heap used (MB). */
  record Sample(double t, long jobs, double rssMb, double heapMb) {}

  public static void main(String[] args) throws Exception {
    int rate = 1_000;
    double minutes = 10;
    double warmupMinutes = 2;
    int leadMs = 200;
    int sampleSeconds = 5;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--minutes" -> minutes = Double.parseDouble(args[++i]);
        case "--warmup-minutes" -> warmupMinutes = Double.parseDouble(args[++i]);
        case "--lead-ms" -> leadMs = Integer.parseInt(args[++i]);
        case "--sample-seconds" -> sampleSeconds = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("soak");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(url);
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s: %d jobs/s for %.1f min (first %.1f warm-up),"
              + " one worker process, RSS sampled every %d s%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          rate,
          minutes,
          warmupMinutes,
          sampleSeconds);
      try (HikariDataSource ds = BenchSupport.dataSource(url, 2)) {
        Migrations.migrate(ds);
      }
      List<Sample> samples = new ArrayList<>();
      long submitted;
      try (Stores stores =
              new Stores(
                  new PostgresSettings(url, "postgres", ""),
                  new RedisSettings(redis.url(), "punctual"),
                  new QueueSettings(),
                  Clock.systemUTC(),
                  "bench");
          PunctualProcesses processes = new PunctualProcesses(url, redis.url())) {
        stores.partitions().ensureAhead();
        PunctualProcesses.Role worker = processes.startWorkers(1).get(0);
        long t0 = System.nanoTime();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        ScheduledFuture<?> unused = // ended by sampler.shutdownNow()
            sampler.scheduleAtFixedRate(
                () -> {
                  double[] rss = BenchSupport.rssMb(worker.pid());
                  long jobs =
                      PunctualProcesses.meterCount(List.of(worker), "punctual.worker.succeeded");
                  double heap = PunctualProcesses.gauge(worker, "jvm.memory.heap.used") / 1048576.0;
                  Sample s = new Sample((System.nanoTime() - t0) / 1e9, jobs, rss[0], heap);
                  synchronized (samples) {
                    samples.add(s);
                  }
                  System.out.printf(
                      Locale.ROOT,
                      "  %5.0f s  %,10d jobs  RSS %6.1f MB  heap used %6.1f MB%n",
                      s.t(),
                      s.jobs(),
                      s.rssMb(),
                      s.heapMb());
                },
                0,
                sampleSeconds,
                TimeUnit.SECONDS);
        submitted = paced(stores, rate, minutes, leadMs);
        BenchSupport.waitFor(
            () ->
                PunctualProcesses.meterCount(List.of(worker), "punctual.worker.succeeded")
                    >= submitted,
            Duration.ofMinutes(5));
        sampler.shutdown();
        sampler.awaitTermination(1, TimeUnit.MINUTES);
        long[] lags =
            stores
                .database()
                .jdbi()
                .withHandle(
                    h ->
                        h.createQuery(
                                "SELECT round(extract(epoch FROM e.started_at - j.run_at)"
                                    + " * 1000)::bigint FROM jobs j JOIN job_executions e"
                                    + " ON e.job_id = j.id"
                                    + " AND e.job_scheduled_at = j.scheduled_at"
                                    + " AND e.attempt = 1")
                            .mapTo(Long.class)
                            .list())
                .stream()
                .mapToLong(Long::longValue)
                .toArray();
        LagBenchmark.Percentiles lag = LagBenchmark.Percentiles.of(lags);
        out.set("lagMs", lag.toJson());
        System.out.printf(
            Locale.ROOT,
            "start lag over the whole run: p50 %.0f  p95 %.0f  p99 %.0f  max %.0f  min %.0f ms%n",
            lag.p50(),
            lag.p95(),
            lag.p99(),
            lag.max(),
            lag.min());
      }
      report(out, samples, warmupMinutes * 60, rate, minutes, submitted);
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /** Submits at the rate for the minutes given; returns how many jobs were submitted. */
  private static long paced(Stores stores, int rate, double minutes, int leadMs) throws Exception {
    java.util.concurrent.atomic.AtomicLong submitted = new java.util.concurrent.atomic.AtomicLong();
    LagBenchmark.paced(
        "punctual",
        rate,
        0,
        minutes * 60,
        leadMs,
        (n, runAt, measured) -> {
          List<NewJob> jobs = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            jobs.add(BenchSupport.noop(runAt, List.of()));
          }
          List<QueueEntry> entries = new ArrayList<>(n);
          for (JobSubmissions.Submitted s : stores.submissions().submit(jobs)) {
            entries.add(
                new QueueEntry(
                    s.job().id(), s.job().namespace(), s.job().priority(), s.job().runAt()));
          }
          stores.queue().enqueue(entries);
          submitted.addAndGet(n);
        });
    return submitted.get();
  }

  private static void report(
      ObjectNode out,
      List<Sample> samples,
      double warmupSeconds,
      int rate,
      double minutes,
      long submitted) {
    List<Sample> measured = samples.stream().filter(s -> s.t() >= warmupSeconds).toList();
    if (measured.size() < 3) {
      throw new IllegalStateException("too few samples after the warm-up: run longer");
    }
    Sample first = measured.get(0);
    Sample last = measured.get(measured.size() - 1);
    double max = measured.stream().mapToDouble(Sample::rssMb).max().orElseThrow();
    double peakAll = samples.stream().mapToDouble(Sample::rssMb).max().orElseThrow();
    // least squares slope of RSS (MB) against jobs run (millions)
    double[] x = measured.stream().mapToDouble(s -> s.jobs() / 1e6).toArray();
    double[] y = measured.stream().mapToDouble(Sample::rssMb).toArray();
    double mx = Arrays.stream(x).average().orElseThrow();
    double my = Arrays.stream(y).average().orElseThrow();
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
    }
    double slope = sxx == 0 ? 0 : sxy / sxx;
    double growth = (last.rssMb() - first.rssMb()) / first.rssMb();
    boolean flat = growth < 0.05 || slope < 20;
    System.out.printf(
        Locale.ROOT,
        "worker RSS after warm-up %.0f MB, at the end %.0f MB (%+.1f%%), max %.0f MB (max incl."
            + " warm-up %.0f MB); slope %.1f MB per million jobs over %,d jobs: %s%n",
        first.rssMb(),
        last.rssMb(),
        growth * 100,
        max,
        peakAll,
        slope,
        last.jobs() - first.jobs(),
        flat ? "FLAT (pass)" : "GROWING (fail)");
    out.put("rate", rate);
    out.put("minutes", minutes);
    out.put("warmupSeconds", warmupSeconds);
    out.put("jobs", submitted);
    out.put("executionsPerSecond", rate);
    out.putNull("submitPerSecond");
    ObjectNode rss = out.putObject("rssMb");
    ObjectNode w = rss.putObject("worker-1");
    w.put("afterWarmup", Math.round(first.rssMb()));
    w.put("end", Math.round(last.rssMb()));
    w.put("max", Math.round(max));
    w.put("peak", Math.round(peakAll));
    w.put("slopeMbPerMillionJobs", Math.round(slope * 10) / 10.0);
    w.put("flat", flat);
    ArrayNode series = out.putArray("samples");
    for (Sample s : samples) {
      ObjectNode n = Json.mapper().createObjectNode();
      n.put("t", Math.round(s.t()));
      n.put("jobs", s.jobs());
      n.put("rssMb", Math.round(s.rssMb() * 10) / 10.0);
      n.put("heapUsedMb", Math.round(s.heapMb() * 10) / 10.0);
      series.add(n);
    }
  }
}
