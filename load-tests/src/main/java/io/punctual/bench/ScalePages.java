package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.bench.ScaleConsole.Call;
import io.punctual.bench.ScaleConsole.Reply;
import io.punctual.bench.ScaleConsole.Tab;
import io.punctual.common.json.Json;
import io.punctual.queue.Stores;
import io.punctual.store.PayloadIndex;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The console's pages on the loaded store ({@link ScaleBenchmark}): a {@code punctual api} process
 * on the benchmark's PostgreSQL and Redis, a few schedules, a workflow and worker rows beside the
 * bulk-loaded jobs, then each page's REST calls timed, the Prometheus scrape, ten polling tabs
 * (against an idle window), the statistics with each groupBy and the payload search with and
 * without the optional payload index.
 */
final class ScalePages {
  private ScalePages() {}

  /** The options of this phase. */
  record Options(int reps, int scrapes, int tabs, int tabSeconds, boolean payloadIndex) {}

  static ObjectNode run(
      Stores stores, String jdbcUrl, String redisUrl, int postgresPort, String tenant, Options o)
      throws Exception {
    ObjectNode out = Json.mapper().createObjectNode();
    seedWorkers(stores);
    try (PunctualProcesses processes = new PunctualProcesses(jdbcUrl, redisUrl)) {
      // the console's calls timed back to back, and ten tabs, on one key: more reads a second
      // than api.readsPerSecondPerKey lets one key make (this phase measures the store, not that)
      PunctualProcesses.Role api = processes.startApi(List.of("-Ddw.api.readsPerSecondPerKey=0"));
      ScaleConsole console = new ScaleConsole(api, tenant);
      Fixtures f = fixtures(stores, console, tenant);
      // a store kept from an interrupted run may still have the payload index
      new PayloadIndex(stores.database().jdbi()).ensure(false);
      List<Call> calls = pageCalls(console, f);
      out.set("pages", console.time(calls, o.reps()));
      out.set("stats", console.time(statsCalls(), o.reps()));
      out.set(
          "payloadSearchWithoutIndex", console.time(payloadCalls(f, false), Math.min(o.reps(), 5)));
      out.set("prometheus", console.scrape(o.scrapes()));
      out.set("tabs", tabs(console, f, o, postgresPort, api.pid()));
      if (o.payloadIndex()) {
        PayloadIndex index = new PayloadIndex(stores.database().jdbi());
        long t = System.nanoTime();
        index.ensure(true);
        double seconds = (System.nanoTime() - t) / 1e9;
        System.out.printf(Locale.ROOT, "%npayload index jobs_payload built in %.0f s%n", seconds);
        out.put("payloadIndexBuildSeconds", Math.round(seconds));
        out.put("payloadIndexSize", payloadIndexSize(stores));
        // the API reads whether the index exists at most every 10 s (JobListing)
        Thread.sleep(11_000);
        out.set(
            "payloadSearchWithIndex", console.time(payloadCalls(f, true), Math.min(o.reps(), 5)));
        index.ensure(false);
      }
      processes.sampleRss();
      out.set("apiRss", processes.rssJson());
    }
    return out;
  }

  /** What the pages are opened on: a failed job of the tenant, a workflow, a schedule... */
  record Fixtures(
      String tenant,
      String failedJob,
      String workflowId,
      String workflowStep,
      String scheduleId,
      String idempotencyKey,
      long order,
      String yesterday,
      String today) {}

  private static Fixtures fixtures(Stores stores, ScaleConsole console, String tenant)
      throws Exception {
    // 50 schedules and a workflow of three steps, through the API (not run: no planner, no worker).
    String scheduleId = null;
    for (int i = 0; i < 50; i++) {
      Reply r =
          console.post(
              "/schedules",
              "{\"name\":\"report-"
                  + i
                  + "\",\"cron\":\""
                  + (i % 60)
                  + " * * * *\",\"type\":\"type-"
                  + (i % 20)
                  + "\",\"payload\":{\"report\":"
                  + i
                  + "}}");
      if (r.status() != 201 && r.status() != 409) {
        throw new IllegalStateException("schedule refused: " + r);
      }
      if (r.status() == 201 && scheduleId == null) {
        scheduleId = r.json().get("id").asText();
      }
    }
    if (scheduleId == null) { // a kept store: they exist already
      scheduleId = console.get("/schedules?limit=1").json().get("items").get(0).get("id").asText();
    }
    Reply wf =
        console.post(
            "/workflows",
            "{\"jobs\":[{\"ref\":\"extract\",\"type\":\"type-1\"},"
                + "{\"ref\":\"transform\",\"type\":\"type-2\",\"dependsOn\":[{\"ref\":\"extract\"}]},"
                + "{\"ref\":\"load\",\"type\":\"type-3\",\"dependsOn\":[{\"ref\":\"transform\"}]}]}");
    if (wf.status() != 201) {
      throw new IllegalStateException("workflow refused: " + wf);
    }
    String workflowId = wf.json().get("id").asText();
    String step = wf.json().get("jobs").get(0).get("id").asText();
    String failed;
    long order;
    String key;
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery(
              "SELECT id, payload->>'order' FROM jobs WHERE namespace = '"
                  + tenant
                  + "' AND status = 'FAILED' AND scheduled_at < now() - interval '2 days'"
                  + " ORDER BY scheduled_at DESC LIMIT 1")) {
        if (!rs.next()) {
          throw new IllegalStateException("no failed job in " + tenant);
        }
        failed = rs.getString(1);
        order = rs.getLong(2);
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT key FROM idempotency_keys WHERE namespace = '"
                  + tenant
                  + "' ORDER BY key DESC LIMIT 1")) {
        if (!rs.next()) {
          throw new IllegalStateException("no idempotency key in " + tenant);
        }
        key = rs.getString(1);
      }
    }
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    return new Fixtures(
        tenant,
        failed,
        workflowId,
        step,
        scheduleId,
        key,
        order,
        today.minusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toString(),
        today.atStartOfDay(ZoneOffset.UTC).toInstant().toString());
  }

  /** Twenty workers of which ten heartbeat recently (the rest stale or stopped). */
  private static void seedWorkers(Stores stores) throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          INSERT INTO workers (id, host, pid, namespaces, concurrency, heartbeat_interval_ms,
                               running, started_at, heartbeat_at, stopped_at)
          SELECT 'worker-' || g, 'host-' || (g % 5), 1000 + g, ARRAY['*'], 32, 5000, g % 7,
                 now() - interval '1 day', now() - (CASE WHEN g <= 10 THEN 0 ELSE g END) * interval '1 minute',
                 CASE WHEN g > 15 THEN now() - interval '1 minute' END
          FROM generate_series(1, 20) g
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
          """);
    }
  }

  /** Each page's calls, as the console's pages/*.js make them when a page opens. */
  private static List<Call> pageCalls(ScaleConsole console, Fixtures f) {
    String yesterday = "from=" + ScaleConsole.enc(f.yesterday()) + "&to=" + enc(f.today());
    List<Call> calls = new ArrayList<>();
    calls.add(Call.of("shell", "/me"));
    calls.add(Call.of("shell", "/namespaces?limit=100"));
    calls.add(Call.of("overview", "/queues/depth"));
    calls.add(Call.of("overview", "/workers?limit=100"));
    calls.add(
        new Call(
            "overview",
            "/stats?from=<24 h ago>&to=<now>&groupBy=namespace (key of every namespace)",
            () -> "/stats?" + ScaleConsole.range(Duration.ofDays(1)) + "&groupBy=namespace"));
    calls.add(
        new Call(
            "overview",
            "/stats?from=<1 h ago>&to=<now>&groupBy=namespace",
            () -> "/stats?" + ScaleConsole.range(Duration.ofHours(1)) + "&groupBy=namespace"));
    calls.add(
        new Call(
            "overview",
            "/stats/series?from=<3 h ago>&to=<next minute>",
            () -> {
              Instant to =
                  Instant.now()
                      .truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
                      .plus(Duration.ofMinutes(1));
              return "/stats/series?from="
                  + enc(to.minus(Duration.ofHours(3)).toString())
                  + "&to="
                  + enc(to.toString());
            }));
    calls.add(Call.of("jobs", "/jobs"));
    calls.add(nextPage(console, "jobs", "/jobs", 2));
    calls.add(nextPage(console, "jobs", "/jobs", 10));
    calls.add(Call.of("jobs", "/jobs?status=FAILED"));
    calls.add(nextPage(console, "jobs", "/jobs?status=FAILED", 2));
    calls.add(Call.of("jobs", "/jobs?status=PENDING&type=type-7"));
    calls.add(Call.of("jobs", "/jobs?status=RUNNING"));
    calls.add(Call.of("jobs", "/jobs?tag=batch-7"));
    calls.add(Call.of("jobs", "/jobs?status=FAILED&" + yesterday));
    calls.add(Call.of("jobs", "/jobs?idempotencyKey=" + enc(f.idempotencyKey())));
    calls.add(Call.of("job", "/jobs/" + f.failedJob()));
    calls.add(Call.of("job", "/jobs/" + f.failedJob() + "/executions"));
    calls.add(Call.of("job", "/jobs/" + f.failedJob() + "/diagnosis"));
    // The job page lists children 20 at a time; a job without any probes every daily partition.
    calls.add(Call.of("job", "/jobs/" + f.failedJob() + "/children?limit=20"));
    calls.add(Call.of("job", "/jobs/" + f.workflowStep()));
    calls.add(Call.of("workflow", "/workflows/" + f.workflowId()));
    calls.add(Call.of("schedules", "/schedules?limit=50"));
    calls.add(Call.of("schedule", "/schedules/" + f.scheduleId()));
    calls.add(Call.of("schedule", "/schedules/" + f.scheduleId() + "/preview?count=10"));
    calls.add(Call.of("schedule", "/schedules/" + f.scheduleId() + "/jobs?limit=20"));
    calls.add(Call.of("workers", "/workers?limit=100"));
    calls.add(Call.of("admin", "/namespaces?limit=100"));
    calls.add(Call.of("admin", "/keys?limit=100"));
    return calls;
  }

  /**
   * Page {@code n} of a list, reached by following nextCursor from the first page (once, at the
   * untimed first run); the timed runs ask for that page.
   */
  private static Call nextPage(ScaleConsole console, String page, String path, int n) {
    String sep = path.contains("?") ? "&" : "?";
    String[] cursor = {null};
    return new Call(
        page,
        path + " page " + n + " (keyset cursor)",
        () -> {
          if (cursor[0] == null) {
            String c = null;
            for (int i = 1; i < n; i++) {
              Reply r = console.get(c == null ? path : path + sep + "cursor=" + enc(c));
              c = r.json().path("nextCursor").asText(null);
              if (c == null) {
                throw new IllegalStateException(path + " has fewer than " + n + " pages");
              }
            }
            cursor[0] = c;
          }
          return path + sep + "cursor=" + enc(cursor[0]);
        });
  }

  private static String enc(String s) {
    return ScaleConsole.enc(s);
  }

  /**
   * Statistics with each groupBy over a day, a week and 31 days (the longest range), for one tenant
   * and for every one.
   */
  private static List<Call> statsCalls() {
    List<Call> calls = new ArrayList<>();
    for (String by : List.of("type", "namespace", "hour")) {
      for (Duration d : List.of(Duration.ofDays(1), Duration.ofDays(7), Duration.ofDays(31))) {
        String days = d.toDays() + " d";
        calls.add(
            new Call(
                "stats",
                "/stats?from=<"
                    + days
                    + " ago>&to=<now>&groupBy="
                    + by
                    + (by.equals("namespace") ? " (every namespace)" : " (tenant)"),
                () -> "/stats?" + ScaleConsole.range(d) + "&groupBy=" + by));
      }
    }
    return calls;
  }

  /**
   * The payload search within yesterday; with the index also as the jobs page makes it without a
   * range (without the index the API refuses that: api.payloadSearchMaxRange).
   */
  private static List<Call> payloadCalls(Fixtures f, boolean indexed) {
    String payload = enc("{\"order\":" + f.order() + "}");
    String customer = enc("{\"customer\":\"c-42\"}");
    String yesterday = "from=" + enc(f.yesterday()) + "&to=" + enc(f.today());
    if (!indexed) {
      return List.of(
          Call.of("jobs", "/jobs?payload=" + payload + "&" + yesterday),
          Call.of("jobs", "/jobs?payload=" + customer + "&" + yesterday));
    }
    return List.of(
        Call.of("jobs", "/jobs?payload=" + payload),
        Call.of("jobs", "/jobs?payload=" + payload + "&" + yesterday),
        Call.of("jobs", "/jobs?payload=" + customer));
  }

  private static String payloadIndexSize(Stores stores) throws Exception {
    try (Connection c = stores.database().dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_size_pretty(sum(pg_relation_size(indexrelid))) FROM pg_index"
                    + " WHERE indexrelid::regclass::text LIKE 'jobs_p%_payload'")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Ten tabs of the overview, then ten tabs over the pages, each against an idle window. */
  private static ObjectNode tabs(
      ScaleConsole console, Fixtures f, Options o, int postgresPort, long apiPid) throws Exception {
    ObjectNode out = Json.mapper().createObjectNode();
    List<Tab> overview = new ArrayList<>();
    for (int i = 0; i < o.tabs(); i++) {
      overview.add(ScaleConsole.overview());
    }
    List<Tab> mixed = new ArrayList<>();
    List<Tab> kinds =
        List.of(
            ScaleConsole.overview(),
            ScaleConsole.fixed(List.of("/jobs")),
            ScaleConsole.fixed(
                List.of(
                    "/jobs/" + f.failedJob(),
                    "/jobs/" + f.failedJob() + "/executions",
                    "/jobs/" + f.failedJob() + "/diagnosis",
                    "/jobs/" + f.failedJob() + "/children?limit=20")),
            ScaleConsole.fixed(List.of("/jobs?status=FAILED")),
            ScaleConsole.fixed(List.of("/workers?limit=100")),
            ScaleConsole.fixed(List.of("/workflows/" + f.workflowId())),
            ScaleConsole.fixed(List.of("/schedules?limit=50")));
    for (int i = 0; i < o.tabs(); i++) {
      mixed.add(kinds.get(i % kinds.size()));
    }
    System.out.printf(
        Locale.ROOT,
        "%n%d tabs polling every %d s for %d s each; PostgreSQL CPU against an idle window of the"
            + " same length (load average %s)%n",
        o.tabs(),
        ScaleConsole.POLL_MS / 1000,
        o.tabSeconds(),
        BenchSupport.loadAverage());
    double[] idle = ScaleConsole.idle(o.tabSeconds(), postgresPort, apiPid);
    report(out, "idle", idle, idle, o.tabSeconds());
    double[] ov = console.poll(overview, o.tabSeconds(), postgresPort, apiPid);
    report(out, "overview", ov, idle, o.tabSeconds());
    double[] idle2 = ScaleConsole.idle(o.tabSeconds(), postgresPort, apiPid);
    report(out, "idle again", idle2, idle2, o.tabSeconds());
    double[] mx = console.poll(mixed, o.tabSeconds(), postgresPort, apiPid);
    report(out, "mixed pages", mx, idle2, o.tabSeconds());
    out.put("loadAverageAfter", BenchSupport.loadAverage());
    return out;
  }

  private static void report(ObjectNode out, String name, double[] cpu, double[] idle, int s) {
    double pgShare = 100 * cpu[0] / s;
    double pgOverIdle = 100 * (cpu[0] - idle[0]) / s;
    double apiShare = 100 * cpu[1] / s;
    ObjectNode n = out.putObject(name);
    n.put("requests", Math.round(cpu[2]));
    n.put("postgresCpuSeconds", ScaleConsole.round(cpu[0]));
    n.put("postgresPercentOfOneCore", ScaleConsole.round(pgShare));
    n.put("postgresPercentOfOneCoreOverIdle", ScaleConsole.round(pgOverIdle));
    n.put("apiCpuSeconds", ScaleConsole.round(cpu[1]));
    n.put("apiPercentOfOneCore", ScaleConsole.round(apiShare));
    System.out.printf(
        Locale.ROOT,
        "  %-12s %5d requests; PostgreSQL %.2f CPU s = %.1f %% of one core (%.1f %% over idle);"
            + " API %.2f CPU s (%.1f %%)%n",
        name,
        Math.round(cpu[2]),
        cpu[0],
        pgShare,
        pgOverIdle,
        cpu[1],
        apiShare);
  }
}
