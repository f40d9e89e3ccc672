package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.bench.ThroughputBenchmark.Drain;
import io.punctual.bench.ThroughputBenchmark.Servers;
import io.punctual.bench.ThroughputBenchmark.Usage;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.NewJob;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.trace.AttemptTracing;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * What the {@code limits} and {@code alerts} benchmarks share: the embedded PostgreSQL 18 (fsync
 * and synchronous_commit on) and Redis with the schema migrated, drains of stored jobs by a fresh
 * in-process {@code Worker} as {@code throughput}'s, alternated pairs (one condition without and
 * with something, the order swapped every round) and their summary.
 */
final class InProcessDrains {
  private InProcessDrains() {}

  /** A benchmark's body, given the stores, the servers to read CPU from and the JSON to fill. */
  interface Body {
    void run(Stores stores, Servers servers, ObjectNode out) throws Exception;
  }

  /** One side of a pair: a drain without ({@code with} false) or with the thing measured. */
  interface Side {
    Drain run(boolean with) throws Exception;
  }

  /** One alternated pair: the drain without and the drain with, in that order of the result. */
  record Pair(Drain without, Drain with) {
    double ratio() {
      return with.perSecond() / without.perSecond();
    }

    double cpuRatio() {
      return cpu(with) / cpu(without);
    }
  }

  /**
   * Starts the embedded stores, prints the setup line (load average included), runs {@code body}
   * and writes the JSON of {@code scenario} to {@code json} (null: none).
   */
  static void run(String scenario, Path json, Body body) throws Exception {
    ObjectNode out = BenchSupport.header(scenario);
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true, Map.of());
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      PostgresSettings db = new PostgresSettings(pg.jdbcUrl("punctual"), "postgres", "");
      Map<String, String> postgres = BenchSupport.postgresSettings(db.url);
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s, one in-process Worker%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage());
      try (var ds = BenchSupport.dataSource(db.url, 2)) {
        Migrations.migrate(ds);
      }
      Servers servers =
          new Servers(pg.port(), BenchSupport.redisPid(redis.url()), pg.jdbcUrl("postgres"));
      try (Stores stores =
          new Stores(
              db,
              new RedisSettings(redis.url(), "bench"),
              new QueueSettings(),
              Clock.systemUTC(),
              "bench")) {
        body.run(stores, servers, out);
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /** Runs both sides, the one with first when {@code withFirst}. */
  static Pair pair(boolean withFirst, Side side) throws Exception {
    Drain without = null;
    Drain with = null;
    for (int i = 0; i < 2; i++) {
      boolean isWith = (i == 0) == withFirst;
      Drain d = side.run(isWith);
      if (isWith) {
        with = d;
      } else {
        without = d;
      }
    }
    return new Pair(without, with);
  }

  /**
   * A warm-up pair (not counted), then {@code rounds} pairs, the side with (on) first every other
   * round: each printed with its ratios (on over off: rate, CPU per job), then their medians;
   * {@code out} gets {@code rounds}, {@code medianRatio} and {@code medianCpuRatio}.
   */
  static void alternatedPairs(int rounds, Side side, ObjectNode out) throws Exception {
    ArrayNode roundsJson = out.putArray("rounds");
    List<Double> ratios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    for (int round = 0; round <= rounds; round++) {
      boolean onFirst = round % 2 == 1;
      Pair pair = pair(onFirst, side);
      String label = round == 0 ? "warm-up (not counted)" : "round " + round;
      System.out.printf(
          Locale.ROOT,
          "%s: off %.0f/s, on %.0f/s (%s first), ratio %.3f, CPU per job ratio %.3f%n",
          label,
          pair.without().perSecond(),
          pair.with().perSecond(),
          onFirst ? "on" : "off",
          pair.ratio(),
          pair.cpuRatio());
      if (round == 0) {
        continue;
      }
      ratios.add(pair.ratio());
      cpuRatios.add(pair.cpuRatio());
      ObjectNode r = roundsJson.addObject();
      r.put("offPerSecond", Math.round(pair.without().perSecond()));
      r.put("onPerSecond", Math.round(pair.with().perSecond()));
      r.put("ratio", round3(pair.ratio()));
      r.put("cpuRatio", round3(pair.cpuRatio()));
    }
    System.out.printf(
        Locale.ROOT,
        "median on/off: rate %.3f (%s), CPU per job %.3f (%s)%n",
        median(ratios),
        spread(ratios),
        median(cpuRatios),
        spread(cpuRatios));
    out.put("medianRatio", round3(median(ratios)));
    out.put("medianCpuRatio", round3(median(cpuRatios)));
  }

  /** Empties the tables, stores {@code jobs} jobs and hands them to the Redis queue. */
  static void prepare(Stores stores, int jobs, IntFunction<NewJob> job) throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "TRUNCATE jobs, job_executions, idempotency_keys, limit_slots, limit_keys,"
              + " limit_reservations, alert_events, alert_incidents");
    }
    stores.partitions().ensureAhead();
    BenchSupport.storeInBatches(stores, jobs, job, stores.queue()::enqueue);
  }

  /** One drain of {@code jobs} stored jobs that all succeed, as throughput's. */
  static Drain drain(Stores stores, Servers servers, int jobs, IntFunction<NewJob> job)
      throws Exception {
    return drain(stores, servers, jobs, 0, job);
  }

  /**
   * One drain of {@code jobs} stored jobs by a fresh in-process worker, of which {@code failing}
   * end FAILED (their first attempt fails and is their last) and the others SUCCEEDED; checked
   * against the job and execution rows afterwards.
   */
  static Drain drain(Stores stores, Servers servers, int jobs, int failing, IntFunction<NewJob> job)
      throws Exception {
    return drain(stores, servers, jobs, failing, job, AttemptTracing.off());
  }

  /**
   * {@link #drain(Stores, Servers, int, int, IntFunction)} by a worker tracing with {@code
   * tracing}.
   */
  static Drain drain(
      Stores stores,
      Servers servers,
      int jobs,
      int failing,
      IntFunction<NewJob> job,
      AttemptTracing tracing)
      throws Exception {
    return drain(
        stores, servers, jobs, failing, job, tracing, s -> BenchSupport.builtIns(stores, s));
  }

  /** The same with the handlers {@code handlers} makes for the worker's settings. */
  static Drain drain(
      Stores stores,
      Servers servers,
      int jobs,
      int failing,
      IntFunction<NewJob> job,
      AttemptTracing tracing,
      Function<WorkerSettings, JobHandlers> handlers)
      throws Exception {
    prepare(stores, jobs, job);
    WorkerSettings settings = new WorkerSettings();
    MetricRegistry metrics = new MetricRegistry();
    Usage before = servers.usage(ThroughputBenchmark.THIS_JVM);
    long started = System.nanoTime();
    try (Worker worker = new Worker(stores, settings, handlers.apply(settings), metrics, tracing)) {
      worker.start();
      var succeeded = metrics.meter("punctual.worker.succeeded");
      var failed = metrics.meter("punctual.worker.failed");
      BenchSupport.waitFor(
          () -> succeeded.getCount() + failed.getCount() >= jobs, Duration.ofMinutes(10));
    }
    long elapsed = System.nanoTime() - started;
    Usage after = servers.usage(ThroughputBenchmark.THIS_JVM);
    if (failing == 0) {
      ThroughputBenchmark.verify(stores, jobs);
    } else {
      verify(stores, jobs - failing, failing);
    }
    return Drain.of(jobs, elapsed / 1e9, before, after);
  }

  private static void verify(Stores stores, int succeeded, int failed) {
    long[] n =
        stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT (SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'),"
                                + " (SELECT count(*) FROM jobs WHERE status = 'FAILED'),"
                                + " (SELECT count(*) FROM job_executions WHERE status = 'SUCCEEDED'),"
                                + " (SELECT count(*) FROM job_executions WHERE status = 'FAILED')")
                        .map(
                            (rs, ctx) ->
                                new long[] {
                                  rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)
                                })
                        .one());
    if (n[0] != succeeded || n[1] != failed || n[2] != succeeded || n[3] != failed) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "expected %d succeeded and %d failed jobs and executions, found jobs %d/%d,"
                  + " executions %d/%d",
              succeeded,
              failed,
              n[0],
              n[1],
              n[2],
              n[3]));
    }
  }

  /** CPU per job of a drain: the worker's JVM, PostgreSQL and Redis, in microseconds. */
  static double cpu(Drain d) {
    return d.appCpuUs() + d.postgresCpuUs() + d.redisCpuUs();
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** {@code "median M (min A, max B, N pairs)"}. */
  static String spread(List<Double> values) {
    return String.format(
        Locale.ROOT,
        "median %.3f (min %.3f, max %.3f, %d pairs)",
        median(values),
        values.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
        values.stream().mapToDouble(d -> d).max().orElse(Double.NaN),
        values.size());
  }

  /** {@code x} to three decimals, for the JSON. */
  static double round3(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
