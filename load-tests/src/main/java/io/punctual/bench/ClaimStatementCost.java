package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.model.JobId;
import io.punctual.queue.Stores;
import io.punctual.store.JobTransitions;
import io.punctual.store.sql.SqlFiles;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;

/**
 * The claim statement alone, with and without a limit on another type: the drains of {@code
 * LimitsBenchmark} measure the whole path, whose noise on a 2-core machine (±10 % a pair) is larger
 * than the few per cent asked about; this isolates the one statement a limit row can change.
 *
 * <p>One connection runs the worker's own claim statement ({@code JobTransitions/claim.sql}, as
 * {@code JobTransitions.claimJudged} binds it, after the same transaction settings) on the same 100
 * pending jobs many times, each in a transaction rolled back, so every execution claims the same
 * 100 jobs from the same state. After pgjdbc's prepare threshold the server runs its cached plan,
 * as a worker's pooled connection does. Each side of a pair (the order swapped every pair) starts
 * after {@code VACUUM jobs} (the rolled back updates leave dead row versions behind) and is charged
 * with PostgreSQL's CPU (its processes' utime + stime, nothing else running), per execution. The
 * ratio of each pair and their median.
 */
final class ClaimStatementCost {
  private ClaimStatementCost() {}

  private static final int BATCH = 100;

  /**
   * @param limit sets the side: true declares the limit on another type, false removes it
   */
  static ObjectNode run(
      Stores stores, int postgresPort, int pairs, int executions, Consumer<Boolean> limit)
      throws Exception {
    SqlFiles sql = new SqlFiles(JobTransitions.class);
    Statements claim = new Statements(sql.get("keyLookupsOnly"), sql.get("claim"));
    List<UUID> ids =
        stores
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT id FROM jobs WHERE status = 'PENDING' ORDER BY id LIMIT "
                                + BATCH)
                        .mapTo(UUID.class)
                        .list());
    if (ids.size() < BATCH) {
      throw new IllegalStateException("need " + BATCH + " pending jobs, found " + ids.size());
    }
    Instant min = ids.stream().map(JobId::scheduledAt).min(Instant::compareTo).orElseThrow();
    Instant max = ids.stream().map(JobId::scheduledAt).max(Instant::compareTo).orElseThrow();
    System.out.printf(
        Locale.ROOT,
        "claim statement: %d executions a side on the same %d jobs (rolled back), %d pairs%n",
        executions,
        BATCH,
        pairs);
    ObjectNode out = Json.mapper().createObjectNode();
    ArrayNode rounds = out.putArray("pairs");
    List<Double> ratios = new ArrayList<>();
    for (int pair = 0; pair <= pairs; pair++) {
      boolean limitedFirst = pair % 2 == 1;
      double none = 0;
      double limited = 0;
      for (int side = 0; side < 2; side++) {
        boolean withLimit = (side == 0) == limitedFirst;
        limit.accept(withLimit);
        double us = side(stores, postgresPort, claim, ids, min, max, executions);
        if (withLimit) {
          limited = us;
        } else {
          none = us;
        }
      }
      double ratio = limited / none;
      System.out.printf(
          Locale.ROOT,
          "  %s: PostgreSQL CPU per statement: no limit %.0f µs, limit on another type %.0f µs"
              + " (%s first), ratio %.3f%n",
          pair == 0 ? "warm-up (not counted)" : "pair " + pair,
          none,
          limited,
          limitedFirst ? "limited" : "unlimited",
          ratio);
      if (pair > 0) {
        ratios.add(ratio);
        ObjectNode r = rounds.addObject();
        r.put("noLimitMicros", Math.round(none));
        r.put("unrelatedLimitMicros", Math.round(limited));
        r.put("ratio", Math.round(ratio * 1000) / 1000.0);
      }
    }
    double median = InProcessDrains.median(ratios);
    System.out.printf(
        Locale.ROOT,
        "claim statement's PostgreSQL CPU, limit on another type / no limit: median %.3f (min"
            + " %.3f, max %.3f, %d pairs)%n",
        median,
        ratios.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
        ratios.stream().mapToDouble(d -> d).max().orElse(Double.NaN),
        ratios.size());
    out.put("executionsPerSide", executions);
    out.put("batch", BATCH);
    out.put("ratioMedian", Math.round(median * 1000) / 1000.0);
    return out;
  }

  /** One side: PostgreSQL CPU per execution of the claim, in microseconds. */
  private static double side(
      Stores stores,
      int postgresPort,
      Statements claim,
      List<UUID> ids,
      Instant min,
      Instant max,
      int executions)
      throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("VACUUM jobs");
    }
    UUID[] batch = ids.toArray(UUID[]::new);
    try (Handle h = stores.database().jdbi().open()) {
      for (int i = 0; i < 10; i++) { // past pgjdbc's prepare threshold and the custom plans
        execute(h, claim, batch, min, max);
      }
      double before = BenchSupport.postgresCpuSeconds(postgresPort);
      for (int i = 0; i < executions; i++) {
        execute(h, claim, batch, min, max);
      }
      double after = BenchSupport.postgresCpuSeconds(postgresPort);
      return (after - before) * 1e6 / executions;
    }
  }

  /** The transaction's settings ({@code JobTransitions.byKeys}), then the claim itself. */
  private record Statements(String settings, String claim) {}

  private static void execute(Handle h, Statements claim, UUID[] ids, Instant min, Instant max) {
    Instant now = Instant.now();
    h.begin();
    try {
      h.createQuery(claim.settings()).mapTo(String.class).one();
      int rows =
          h.createQuery(claim.claim())
              .bind("ids", ids)
              .bind("minScheduled", min)
              .bind("maxScheduled", max)
              .bind("workerId", "bench")
              .bind("now", now)
              .bind("nowMs", now.toEpochMilli())
              .mapToMap()
              .list()
              .size();
      if (rows != ids.length) {
        throw new IllegalStateException("the claim returned " + rows + " rows, not " + ids.length);
      }
    } finally {
      h.rollback();
    }
  }
}
