package io.punctual.bench;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.bench.InProcessDrains.Pair;
import io.punctual.bench.ThroughputBenchmark.Drain;
import io.punctual.bench.ThroughputBenchmark.Servers;
import io.punctual.model.NewJob;
import io.punctual.queue.Stores;
import io.punctual.store.limit.Limit;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What limits cost and how precise they are, with one in-process {@code Worker} draining no-op jobs
 * on the embedded PostgreSQL 18 (fsync and synchronous_commit on) and Redis, as {@code throughput}
 * does:
 *
 * <ol>
 *   <li><b>unrelated</b>: N jobs drained with no limit at all, and with a limit declared on another
 *       type of the same namespace, as alternated pairs (the order swapped every round); the ratio
 *       of each pair and their median;
 *   <li><b>claim statement</b> ({@link ClaimStatementCost}): the claim statement alone, with and
 *       without the limit on another type, charged with PostgreSQL's CPU (before the drains);
 *   <li><b>keyed</b>: K jobs spread over 1,000 keys, each key limited to concurrency 1 (the jobs'
 *       concurrencyKey), drained in the same rounds, beside the unlimited figure of the round;
 *   <li><b>rate</b>: one key limited to R starts per second (burst 1) with a backlog deeper than S
 *       seconds of it; the starts per 1-second bucket over S seconds, from the job rows' {@code
 *       started_at} (the claim statement's grant time).
 * </ol>
 *
 * <p>Usage: {@code LimitsBenchmark [--jobs N] [--keyed-jobs K] [--keys 1000] [--rounds R] [--rate
 * 50] [--seconds 60] [--skip-keyed] [--skip-rate] [--placebo] [--statement-pairs 8]
 * [--statement-executions 300] [--json FILE]}; defaults 50,000 jobs, 20,000 keyed jobs, 5 rounds
 * after a warm-up round that is not counted. {@code --placebo} declares no limit on either side of
 * the unrelated pairs (an A/A run: the harness's own noise); {@code --statement-pairs 0} skips the
 * statement part.
 */
public final class LimitsBenchmark {
  private LimitsBenchmark() {}

  private static final String TYPE = "noop";

  public static void main(String[] args) throws Exception {
    int jobs = 50_000;
    int keyedJobs = 20_000;
    int keys = 1_000;
    int rounds = 5;
    int rate = 50;
    int seconds = 60;
    boolean keyed = true;
    boolean rated = true;
    boolean placebo = false;
    int statementPairs = 8;
    int statementExecutions = 300;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--keyed-jobs" -> keyedJobs = Integer.parseInt(args[++i]);
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--skip-keyed" -> keyed = false;
        case "--skip-rate" -> rated = false;
        case "--placebo" -> placebo = true;
        case "--statement-pairs" -> statementPairs = Integer.parseInt(args[++i]);
        case "--statement-executions" -> statementExecutions = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (jobs < 1
        || keyedJobs < 1
        || keys < 1
        || rounds < 1
        || rate < 1
        || seconds < 1
        || statementPairs < 0
        || statementExecutions < 1) {
      throw new IllegalArgumentException("every count must be at least 1");
    }
    int n = jobs;
    int k = keyed ? keyedJobs : 0;
    int keyCount = keys;
    int roundCount = rounds;
    int perSecond = rate;
    int window = seconds;
    boolean withRate = rated;
    boolean aa = placebo;
    int pairs = statementPairs;
    int executions = statementExecutions;
    InProcessDrains.run(
        "limits",
        json,
        (stores, servers, out) -> {
          if (pairs > 0) {
            InProcessDrains.prepare(
                stores, 20_000, i -> BenchSupport.noop(Instant.now(), List.of()));
            out.set(
                "claimStatement",
                ClaimStatementCost.run(
                    stores,
                    servers.postgresPort(),
                    pairs,
                    executions,
                    limited -> limits(stores, limited ? unrelatedLimit() : null)));
            limits(stores, null);
          }
          throughput(stores, servers, n, k, keyCount, roundCount, aa, out);
          if (withRate) {
            rate(stores, perSecond, window, out);
          }
        });
  }

  /** Parts 1 and 2: alternated drains without a limit and with one on another type; keyed. */
  private static void throughput(
      Stores stores,
      Servers servers,
      int jobs,
      int keyedJobs,
      int keys,
      int rounds,
      boolean placebo,
      ObjectNode out)
      throws Exception {
    if (placebo) {
      System.out.println(
          "placebo (--placebo): neither side declares a limit; the pairs show the harness's own"
              + " noise");
      out.put("placebo", true);
    }
    System.out.printf(
        Locale.ROOT,
        "throughput: %d jobs per drain, %d rounds after a warm-up%s%n",
        jobs,
        rounds,
        keyedJobs > 0
            ? String.format(
                Locale.ROOT, "; keyed: %d jobs over %d keys of concurrency 1", keyedJobs, keys)
            : "");
    ArrayNode roundsJson = out.putArray("rounds");
    List<Double> ratios = new ArrayList<>();
    List<Double> keyedRatios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    for (int round = 0; round <= rounds; round++) {
      boolean limitedFirst = round % 2 == 1;
      Pair pair =
          InProcessDrains.pair(
              limitedFirst,
              limited -> {
                limits(stores, limited && !placebo ? unrelatedLimit() : null);
                return InProcessDrains.drain(
                    stores, servers, jobs, i -> BenchSupport.noop(Instant.now(), List.of()));
              });
      Drain none = pair.without();
      Drain unrelated = pair.with();
      Drain keyedDrain = null;
      if (keyedJobs > 0) {
        limits(
            stores,
            new Limit(
                NewJob.DEFAULT_NAMESPACE,
                "keyed",
                TYPE,
                Limit.CONCURRENCY_KEY,
                1,
                null,
                false,
                false,
                null,
                null));
        Instant now = Instant.now();
        keyedDrain =
            InProcessDrains.drain(stores, servers, keyedJobs, i -> keyedJob(now, "k" + (i % keys)));
        limits(stores, null);
      }
      double ratio = pair.ratio();
      double cpuRatio = pair.cpuRatio();
      System.out.printf(
          Locale.ROOT,
          "%s: no limit %.0f/s, limit on another type %.0f/s (%s first), ratio %.3f, CPU per job"
              + " ratio %.3f%s%n",
          round == 0 ? "warm-up (not counted)" : "round " + round,
          none.perSecond(),
          unrelated.perSecond(),
          limitedFirst ? "limited" : "unlimited",
          ratio,
          cpuRatio,
          keyedDrain == null
              ? ""
              : String.format(
                  Locale.ROOT,
                  "; %d keys of concurrency 1: %.0f/s (%.2f of no limit)",
                  keys,
                  keyedDrain.perSecond(),
                  keyedDrain.perSecond() / none.perSecond()));
      System.out.println(
          "  CPU per job: no limit "
              + none.cpuLine()
              + "; limit on another type "
              + unrelated.cpuLine()
              + (keyedDrain == null ? "" : "; keyed " + keyedDrain.cpuLine()));
      if (round > 0) {
        ratios.add(ratio);
        cpuRatios.add(cpuRatio);
        ObjectNode r = roundsJson.addObject();
        r.put("order", limitedFirst ? "limited first" : "unlimited first");
        r.put("noLimitPerSecond", Math.round(none.perSecond()));
        r.put("unrelatedLimitPerSecond", Math.round(unrelated.perSecond()));
        r.put("ratio", Math.round(ratio * 1000) / 1000.0);
        r.put("cpuRatio", Math.round(cpuRatio * 1000) / 1000.0);
        none.putCpu(r.putObject("noLimitCpuMicrosPerJob"));
        unrelated.putCpu(r.putObject("unrelatedLimitCpuMicrosPerJob"));
        if (keyedDrain != null) {
          double k = keyedDrain.perSecond() / none.perSecond();
          keyedRatios.add(k);
          r.put("keyedPerSecond", Math.round(keyedDrain.perSecond()));
          r.put("keyedRatio", Math.round(k * 1000) / 1000.0);
          keyedDrain.putCpu(r.putObject("keyedCpuMicrosPerJob"));
        }
      }
    }
    System.out.println("limit on another type / no limit: " + InProcessDrains.spread(ratios));
    System.out.println(
        "CPU per job (worker + PostgreSQL + Redis), limit on another type / no limit: "
            + InProcessDrains.spread(cpuRatios));
    out.put("jobs", jobs);
    out.put(
        "unrelatedCpuRatioMedian", Math.round(InProcessDrains.median(cpuRatios) * 1000) / 1000.0);
    out.put("unrelatedRatioMedian", Math.round(InProcessDrains.median(ratios) * 1000) / 1000.0);
    if (!keyedRatios.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "%d keys of concurrency 1 / no limit: median %.3f%n",
          keys,
          InProcessDrains.median(keyedRatios));
      out.put("keyedJobs", keyedJobs);
      out.put("keys", keys);
      out.put("keyedRatioMedian", Math.round(InProcessDrains.median(keyedRatios) * 1000) / 1000.0);
    }
  }

  /** Part 3: one key at {@code rate}/s, burst 1, a backlog deeper than {@code seconds} of it. */
  private static void rate(Stores stores, int rate, int seconds, ObjectNode out) throws Exception {
    limits(
        stores,
        new Limit(
            NewJob.DEFAULT_NAMESPACE,
            "rate",
            TYPE,
            null,
            null,
            new Limit.Rate(rate, Duration.ofSeconds(1), 1),
            false,
            false,
            null,
            null));
    int backlog = rate * seconds * 3 / 2 + 100;
    InProcessDrains.prepare(stores, backlog, i -> BenchSupport.noop(Instant.now(), List.of()));
    System.out.printf(
        Locale.ROOT,
        "rate: one key at %d/s (burst 1), %d jobs due now, the worker runs %d s%n",
        rate,
        backlog,
        seconds + 3);
    WorkerSettings settings = new WorkerSettings();
    MetricRegistry metrics = new MetricRegistry();
    try (Worker worker =
        new Worker(stores, settings, BenchSupport.builtIns(stores, settings), metrics)) {
      worker.start();
      Thread.sleep(Duration.ofSeconds(seconds + 3));
    }
    List<Instant> starts =
        stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT started_at FROM jobs WHERE started_at IS NOT NULL"
                                + " ORDER BY started_at")
                        .mapTo(Instant.class)
                        .list());
    limits(stores, null);
    if (starts.isEmpty()) {
      throw new IllegalStateException("no job started");
    }
    Instant first = starts.get(0);
    int[] buckets = new int[seconds];
    for (Instant s : starts) {
      long ms = Duration.between(first, s).toMillis();
      if (ms < seconds * 1000L) {
        buckets[(int) (ms / 1000)]++;
      }
    }
    int total = Arrays.stream(buckets).sum();
    int min = Arrays.stream(buckets).min().orElse(0);
    int max = Arrays.stream(buckets).max().orElse(0);
    double mean = total / (double) seconds;
    System.out.printf(
        Locale.ROOT,
        "rate: %d starts in the first %d s from the first start: %.2f/s (%.2f %% of the limit);"
            + " per 1-s bucket min %d, max %d; %d started in all%n",
        total,
        seconds,
        mean,
        (mean / rate - 1) * 100,
        min,
        max,
        starts.size());
    System.out.println("  buckets: " + Arrays.toString(buckets));
    ObjectNode r = out.putObject("rate");
    r.put("limitPerSecond", rate);
    r.put("seconds", seconds);
    r.put("backlog", backlog);
    r.put("starts", total);
    r.put("meanPerSecond", Math.round(mean * 100) / 100.0);
    r.put("minBucket", min);
    r.put("maxBucket", max);
    ArrayNode b = r.putArray("buckets");
    Arrays.stream(buckets).forEach(b::add);
  }

  private static Limit unrelatedLimit() {
    return new Limit(
        NewJob.DEFAULT_NAMESPACE, "other", "other", null, 10, null, false, false, null, null);
  }

  /** Replaces the limits of the namespace with {@code limit} (null: none). */
  private static void limits(Stores stores, Limit limit) {
    stores
        .database()
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate("DELETE FROM limits WHERE namespace = :ns")
                    .bind("ns", NewJob.DEFAULT_NAMESPACE)
                    .execute());
    if (limit != null) {
      stores.limits().put(limit);
    }
  }

  private static NewJob keyedJob(Instant now, String key) {
    NewJob n = BenchSupport.noop(now, List.of());
    return n.withConcurrencyKey(key);
  }
}
