package io.punctual.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.model.JobState;
import io.punctual.queue.Stores;
import io.punctual.store.JobQueries;
import io.punctual.store.JobQueries.JobQuery;
import io.punctual.store.stats.StatsReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The queries users run on the scale benchmark's store, the way the API runs them ({@code GET
 * /jobs} through {@link JobQueries#list}, the same prepared statement; the statistics through
 * {@link StatsReader}) or, for an aggregate the API has no endpoint for, as plain SQL. Each is
 * timed (its first run, then the best and median of the next five) and explained ({@code EXPLAIN
 * (ANALYZE, BUFFERS)}: the partitions it read, the indexes it used); the full plans go to {@code
 * target/scale-explain.txt}.
 */
final class ScaleQueries {
  private ScaleQueries() {}

  /** The namespace the queries (and the console's pages) look at. */
  static final String TENANT = "tenant-7";

  private static final String TYPE = "type-7";

  /** One user query: how it is run (the API's statement or SQL) and how it is explained. */
  private record UserQuery(String name, String how, Callable<Integer> run, String explain) {}

  static ArrayNode run(Stores stores) throws Exception {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    Instant yesterday = today.minusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant midnight = today.atStartOfDay(ZoneOffset.UTC).toInstant();
    JobQuery failedYesterday =
        new JobQuery(TENANT, JobState.FAILED, null, null, yesterday, midnight, null, 50);
    JobQuery pendingOfType =
        new JobQuery(TENANT, JobState.PENDING, TYPE, null, null, null, null, 50);
    JobQuery running = new JobQuery(TENANT, JobState.RUNNING, null, null, null, null, null, 50);
    String successRate =
        """
        SELECT type, count(*) FILTER (WHERE status = 'SUCCEEDED')::float8 / count(*) AS success_rate,
               count(*) AS finished
        FROM jobs
        WHERE namespace = 'tenant-7' AND status IN ('SUCCEEDED', 'FAILED')
          AND scheduled_at >= now() - interval '7 days' AND scheduled_at < now()
        GROUP BY type ORDER BY type""";
    String successRateAll = successRate.replace("namespace = 'tenant-7' AND ", "");
    String stuck =
        """
        SELECT id, type, worker_id, started_at, heartbeat_at FROM jobs
        WHERE namespace = 'tenant-7' AND status = 'RUNNING'
          AND started_at < now() - interval '1 hour'
        ORDER BY started_at LIMIT 100""";
    List<UserQuery> queries =
        List.of(
            new UserQuery(
                "failed jobs from yesterday (tenant)",
                "GET /jobs?status=FAILED&from=<yesterday>&to=<today>",
                () -> stores.queries().list(failedYesterday).items().size(),
                listExplain(failedYesterday)),
            new UserQuery(
                "pending jobs of type X for tenant Y",
                "GET /jobs?status=PENDING&type=type-7",
                () -> stores.queries().list(pendingOfType).items().size(),
                listExplain(pendingOfType)),
            new UserQuery(
                "success rate by type over 7 days (tenant)",
                "SQL",
                () -> count(stores, successRate),
                successRate),
            new UserQuery(
                "success rate by type over 7 days (all tenants)",
                "SQL",
                () -> count(stores, successRateAll),
                successRateAll),
            new UserQuery(
                "success rate by type over 7 days (tenant), rollup",
                "GET /stats?groupBy=type&from=<7 days ago>",
                () ->
                    new StatsReader(stores.database().jdbi())
                        .groups(
                            List.of(TENANT),
                            Instant.now().minus(Duration.ofDays(7)),
                            Instant.now(),
                            StatsReader.GroupBy.TYPE)
                        .size(),
                "SELECT * FROM job_stats_minutes WHERE namespace = '"
                    + TENANT
                    + "' AND minute >= now() - interval '7 days' AND minute < now()"),
            new UserQuery(
                "per-minute series, last 24 hours (tenant), rollup",
                "GET /stats/series?from=<24 h ago>",
                () ->
                    new StatsReader(stores.database().jdbi())
                        .series(TENANT, Instant.now().minus(Duration.ofDays(1)), Instant.now())
                        .size(),
                "SELECT minute, sum(started) FROM job_stats_minutes WHERE namespace = '"
                    + TENANT
                    + "' AND minute >= now() - interval '1 day' GROUP BY minute"),
            new UserQuery(
                "jobs stuck RUNNING for over an hour (tenant)",
                "SQL",
                () -> count(stores, stuck),
                stuck),
            new UserQuery(
                "running jobs (tenant)",
                "GET /jobs?status=RUNNING",
                () -> stores.queries().list(running).items().size(),
                listExplain(running)));
    ArrayNode results = Json.mapper().createArrayNode();
    StringBuilder plans = new StringBuilder();
    System.out.printf(
        Locale.ROOT,
        "%n%-48s %-52s %8s %8s %8s %5s%n",
        "query",
        "as",
        "first ms",
        "best ms",
        "median",
        "rows");
    // Warms the client side (statement preparation, row mapping) on a namespace with no jobs, so
    // that the first run of each query measures the database, not class loading.
    stores
        .queries()
        .list(new JobQuery("nobody", JobState.FAILED, null, null, null, null, null, 50));
    count(stores, "SELECT 1");
    for (UserQuery q : queries) {
      double first = time(q.run());
      double[] ms = new double[5];
      int rows = 0;
      for (int i = 0; i < ms.length; i++) {
        long t = System.nanoTime();
        rows = q.run().call();
        ms[i] = (System.nanoTime() - t) / 1e6;
      }
      Arrays.sort(ms);
      ObjectNode r = results.addObject();
      r.put("query", q.name());
      r.put("as", q.how());
      r.put("firstMs", round(first));
      r.put("bestMs", round(ms[0]));
      r.put("medianMs", round(ms[2]));
      r.put("rows", rows);
      String summary = explain(stores, q, plans, r);
      System.out.printf(
          Locale.ROOT,
          "%-48s %-52s %8.1f %8.1f %8.1f %5d%n    %s%n",
          q.name(),
          q.how(),
          first,
          ms[0],
          ms[2],
          rows,
          summary);
    }
    Path file = Path.of("target", "scale-explain.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(file, plans);
    System.out.println("full plans: " + file);
    return results;
  }

  private static double time(Callable<Integer> run) throws Exception {
    long t = System.nanoTime();
    run.call();
    return (System.nanoTime() - t) / 1e6;
  }

  private static double round(double ms) {
    return Math.round(ms * 10) / 10.0;
  }

  private static int count(Stores stores, String sql) {
    return stores.database().jdbi().withHandle(h -> h.createQuery(sql).mapToMap().list().size());
  }

  /**
   * The API's list statement ({@code JobQueries/list.sql}) with this query's values, the way the
   * server plans it for a prepared statement's first executions (a custom plan).
   */
  private static String listExplain(JobQuery q) throws Exception {
    String sql = SqlText.resource("/io/punctual/store/JobQueries/list.sql");
    Instant from = q.from() == null ? Instant.EPOCH : q.from();
    Instant to = q.to() == null ? Instant.ofEpochMilli((1L << 48) - 1) : q.to();
    return sql.replaceAll("(?m)^--.*\\n", "")
        .replace(":namespace", SqlText.literal(q.namespace()))
        .replace(":from", SqlText.timestamp(from))
        .replace(":to", SqlText.timestamp(to))
        .replace(":status", q.status() == null ? "NULL" : SqlText.literal(q.status().name()))
        .replace(":type", q.type() == null ? "NULL" : SqlText.literal(q.type()))
        .replace(":tag", q.tag() == null ? "NULL" : SqlText.literal(q.tag()))
        .replace(":cursor", "NULL")
        .replace(":limit", Integer.toString(q.limit() + 1));
  }

  /**
   * Runs EXPLAIN (ANALYZE, BUFFERS) and returns a one-line summary; the full plan goes to plans.
   */
  private static String explain(Stores stores, UserQuery q, StringBuilder plans, ObjectNode r)
      throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      plans.append("== ").append(q.name()).append(" (").append(q.how()).append(")\n");
      plans.append(q.explain()).append("\n\n");
      try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + q.explain())) {
        while (rs.next()) {
          plans.append(rs.getString(1)).append('\n');
        }
      }
      plans.append('\n');
      JsonNode plan;
      try (ResultSet rs =
          s.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + q.explain())) {
        rs.next();
        plan = Json.mapper().readTree(rs.getString(1)).get(0);
      }
      Set<String> partitions = new LinkedHashSet<>();
      Set<String> access = new LinkedHashSet<>();
      int[] removed = {0};
      walk(plan.get("Plan"), partitions, access, removed);
      JsonNode top = plan.get("Plan");
      long hit = top.path("Shared Hit Blocks").asLong();
      long read = top.path("Shared Read Blocks").asLong();
      double planning = plan.path("Planning Time").asDouble();
      double execution = plan.path("Execution Time").asDouble();
      long total;
      try (ResultSet rs =
          s.executeQuery("SELECT count(*) FROM pg_inherits WHERE inhparent = 'jobs'::regclass")) {
        rs.next();
        total = rs.getLong(1);
      }
      r.put("partitionsRead", partitions.size());
      r.put("partitionsTotal", total);
      r.put("access", String.join(", ", access));
      r.put("planningMs", planning);
      r.put("executionMs", execution);
      r.put("sharedHit", hit);
      r.put("sharedRead", read);
      return String.format(
          Locale.ROOT,
          "partitions read %d of %d%s; %s; buffers hit %d read %d; planning %.1f ms, execution"
              + " %.1f ms",
          partitions.size(),
          total,
          removed[0] > 0 ? " (" + removed[0] + " pruned at run time)" : "",
          String.join(", ", access),
          hit,
          read,
          planning,
          execution);
    }
  }

  private static void walk(
      JsonNode node, Set<String> partitions, Set<String> access, int[] removed) {
    if (node == null) {
      return;
    }
    removed[0] += node.path("Subplans Removed").asInt(0);
    String type = node.path("Node Type").asText();
    boolean executed = node.path("Actual Loops").asLong(1) > 0;
    String rel = node.path("Relation Name").asText("");
    if (executed && (rel.startsWith("jobs_p") || rel.startsWith("job_executions_p"))) {
      partitions.add(rel);
    }
    String index = node.path("Index Name").asText("");
    if (!index.isEmpty()) {
      access.add(type + " " + index.replaceAll("_p\\d{8}", "_pYYYYMMDD"));
    } else if (!rel.isEmpty()) {
      access.add(type);
    }
    for (JsonNode child : node.path("Plans")) {
      walk(child, partitions, access, removed);
    }
  }
}
