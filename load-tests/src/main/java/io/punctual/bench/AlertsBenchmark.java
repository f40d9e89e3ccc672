package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.bench.InProcessDrains.Pair;
import io.punctual.bench.ThroughputBenchmark.Servers;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.queue.Stores;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertRule;
import io.punctual.store.alert.AlertRules;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * What the alert outbox costs the finish path, with one in-process {@code Worker} draining jobs as
 * {@code limits} does. While a {@code job_failed} (or {@code timed_out}) rule exists in the
 * namespace, every finish batch runs one more statement in its transaction (the outbox's {@code
 * INSERT ... SELECT}, since a success may clear an incident); without one it runs none.
 *
 * <ol>
 *   <li><b>succeeding</b>: N no-op jobs, all succeeding, drained with no rule and with a {@code
 *       job_failed} rule on the namespace (it matches no event: the cost of its mere presence), as
 *       alternated pairs (the order swapped every round); the ratio of each pair and their median;
 *   <li><b>failing</b>: the same with P % of the jobs of type {@code fail} and one attempt (they
 *       end FAILED), in the same rounds: with the rule each failure writes an outbox row (and a
 *       success after it a recovery row, no alerter folding them here).
 * </ol>
 *
 * <p>Usage: {@code AlertsBenchmark [--jobs N] [--rounds R] [--fail-percent P] [--json FILE]};
 * defaults 30,000 jobs, 8 rounds after a warm-up round that is not counted, P 5 (0 skips part 2).
 */
public final class AlertsBenchmark {
  private AlertsBenchmark() {}

  private static final String RULE = "bench-failures";

  public static void main(String[] args) throws Exception {
    int jobs = 30_000;
    int rounds = 8;
    int failPercent = 5;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--fail-percent" -> failPercent = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (jobs < 1 || rounds < 1 || failPercent < 0 || failPercent > 100) {
      throw new IllegalArgumentException(
          "--jobs and --rounds must be at least 1, --fail-percent from 0 to 100");
    }
    int n = jobs;
    int r = rounds;
    int p = failPercent;
    InProcessDrains.run(
        "alerts", json, (stores, servers, out) -> run(stores, servers, n, r, p, out));
  }

  private static void run(
      Stores stores, Servers servers, int jobs, int rounds, int failPercent, ObjectNode out)
      throws Exception {
    int failEvery = failPercent == 0 ? 0 : Math.max(1, Math.round(100f / failPercent));
    int failing = failEvery == 0 ? 0 : (jobs + failEvery - 1) / failEvery;
    System.out.printf(
        Locale.ROOT,
        "alerts: %d jobs per drain, %d rounds after a warm-up; with or without a job_failed rule"
            + " on the namespace%s%n",
        jobs,
        rounds,
        failing == 0
            ? ""
            : String.format(
                Locale.ROOT,
                "; then %d of them (every %dth, %.1f %%) failing",
                failing,
                failEvery,
                100.0 * failing / jobs));
    ArrayNode roundsJson = out.putArray("rounds");
    List<Double> ratios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    List<Double> failingRatios = new ArrayList<>();
    List<Double> failingCpuRatios = new ArrayList<>();
    long[] outboxRows = new long[1];
    for (int round = 0; round <= rounds; round++) {
      boolean ruleFirst = round % 2 == 1;
      Pair ok =
          InProcessDrains.pair(
              ruleFirst,
              withRule -> {
                rule(stores, withRule);
                var d =
                    InProcessDrains.drain(
                        stores, servers, jobs, 0, i -> BenchSupport.noop(Instant.now(), List.of()));
                long rows = outboxRows(stores);
                if (rows != 0) {
                  throw new IllegalStateException(
                      "all jobs succeeded, yet the outbox holds " + rows + " rows");
                }
                return d;
              });
      String label = round == 0 ? "warm-up (not counted)" : "round " + round;
      System.out.printf(
          Locale.ROOT,
          "%s: no rule %.0f/s, job_failed rule %.0f/s (%s first), ratio %.3f, CPU per job ratio"
              + " %.3f%n",
          label,
          ok.without().perSecond(),
          ok.with().perSecond(),
          ruleFirst ? "rule" : "no rule",
          ok.ratio(),
          ok.cpuRatio());
      System.out.println(
          "  CPU per job: no rule " + ok.without().cpuLine() + "; rule " + ok.with().cpuLine());
      Pair failed = null;
      if (failing > 0) {
        IntFunction<NewJob> job = i -> i % failEvery == 0 ? failing(Instant.now()) : noop();
        failed =
            InProcessDrains.pair(
                ruleFirst,
                withRule -> {
                  rule(stores, withRule);
                  var d = InProcessDrains.drain(stores, servers, jobs, failing, job);
                  if (withRule) {
                    outboxRows[0] = outboxRows(stores);
                  }
                  return d;
                });
        System.out.printf(
            Locale.ROOT,
            "  %d failing: no rule %.0f/s, job_failed rule %.0f/s (%d outbox rows), ratio %.3f,"
                + " CPU per job ratio %.3f%n",
            failing,
            failed.without().perSecond(),
            failed.with().perSecond(),
            outboxRows[0],
            failed.ratio(),
            failed.cpuRatio());
        System.out.println(
            "  CPU per job: no rule "
                + failed.without().cpuLine()
                + "; rule "
                + failed.with().cpuLine());
      }
      System.out.println("  load average " + BenchSupport.loadAverage());
      if (round > 0) {
        ratios.add(ok.ratio());
        cpuRatios.add(ok.cpuRatio());
        ObjectNode r = roundsJson.addObject();
        r.put("order", ruleFirst ? "rule first" : "no rule first");
        r.put("loadAverage", BenchSupport.loadAverage());
        r.put("noRulePerSecond", Math.round(ok.without().perSecond()));
        r.put("rulePerSecond", Math.round(ok.with().perSecond()));
        r.put("ratio", InProcessDrains.round3(ok.ratio()));
        r.put("cpuRatio", InProcessDrains.round3(ok.cpuRatio()));
        ok.without().putCpu(r.putObject("noRuleCpuMicrosPerJob"));
        ok.with().putCpu(r.putObject("ruleCpuMicrosPerJob"));
        if (failed != null) {
          failingRatios.add(failed.ratio());
          failingCpuRatios.add(failed.cpuRatio());
          ObjectNode f = r.putObject("failing");
          f.put("noRulePerSecond", Math.round(failed.without().perSecond()));
          f.put("rulePerSecond", Math.round(failed.with().perSecond()));
          f.put("outboxRows", outboxRows[0]);
          f.put("ratio", InProcessDrains.round3(failed.ratio()));
          f.put("cpuRatio", InProcessDrains.round3(failed.cpuRatio()));
          failed.without().putCpu(f.putObject("noRuleCpuMicrosPerJob"));
          failed.with().putCpu(f.putObject("ruleCpuMicrosPerJob"));
        }
      }
    }
    rule(stores, false);
    System.out.println(
        "all succeeding, job_failed rule / no rule: " + InProcessDrains.spread(ratios));
    System.out.println(
        "  CPU per job (worker + PostgreSQL + Redis), rule / no rule: "
            + InProcessDrains.spread(cpuRatios));
    out.put("jobs", jobs);
    out.put("ratioMedian", InProcessDrains.round3(InProcessDrains.median(ratios)));
    out.put("cpuRatioMedian", InProcessDrains.round3(InProcessDrains.median(cpuRatios)));
    if (!failingRatios.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "%d of %d failing, job_failed rule / no rule: %s%n",
          failing,
          jobs,
          InProcessDrains.spread(failingRatios));
      System.out.println(
          "  CPU per job (worker + PostgreSQL + Redis), rule / no rule: "
              + InProcessDrains.spread(failingCpuRatios));
      out.put("failingJobs", failing);
      out.put("failingRatioMedian", InProcessDrains.round3(InProcessDrains.median(failingRatios)));
      out.put(
          "failingCpuRatioMedian",
          InProcessDrains.round3(InProcessDrains.median(failingCpuRatios)));
    }
    System.out.println("load average at the end " + BenchSupport.loadAverage());
  }

  /**
   * Deletes the namespace's rules and, when {@code present}, creates one job_failed rule on all its
   * types; the finish path sees the change at once (the outbox's cache read again).
   */
  private static void rule(Stores stores, boolean present) {
    stores
        .database()
        .jdbi()
        .useHandle(
            h ->
                h.createUpdate("DELETE FROM alert_rules WHERE namespace = :ns")
                    .bind("ns", NewJob.DEFAULT_NAMESPACE)
                    .execute());
    if (present) {
      new AlertRules(stores.database().jdbi(), Clock.systemUTC())
          .create(
              NewJob.DEFAULT_NAMESPACE,
              new AlertRule.Draft(
                  RULE,
                  AlertEvent.JOB_FAILED,
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  AlertRule.Channel.WEBHOOK,
                  "https://alerts.invalid/hook",
                  Duration.ofMinutes(5)));
    }
    stores.transitions().alerts().refresh();
    boolean hot = !stores.transitions().alerts().watched().isEmpty();
    if (hot != present) {
      throw new IllegalStateException("the finish path does not see the rule as set: " + present);
    }
  }

  private static long outboxRows(Stores stores) {
    return stores
        .database()
        .jdbi()
        .withHandle(
            h -> h.createQuery("SELECT count(*) FROM alert_events").mapTo(Long.class).one());
  }

  private static NewJob noop() {
    return BenchSupport.noop(Instant.now(), List.of());
  }

  /** A {@code fail} job of one attempt: it ends FAILED. */
  private static NewJob failing(Instant now) {
    NewJob n = BenchSupport.noop(now, List.of());
    return n.toBuilder()
        .type("fail")
        .maxAttempts(1)
        .links(JobLinks.NONE)
        .concurrencyKey(null)
        .build();
  }
}
