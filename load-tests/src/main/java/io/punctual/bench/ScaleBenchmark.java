package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.Migrations;
import io.punctual.store.config.PostgresSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;

/**
 * The store at scale, in four parts:
 *
 * <ol>
 *   <li>{@link ScaleStore}: N jobs bulk-loaded into PostgreSQL (durable) over the last 30 days and
 *       the next 3 (50 namespaces = tenants, 20 types; about 94% SUCCEEDED, 5% FAILED after 3
 *       attempts, 1% CANCELLED, the future ones PENDING, one in 100,000 still RUNNING; payload
 *       {@code {"order": n, "customer": "c-<n mod 1000>"}}, one job in 100 with an idempotency
 *       key), one {@code job_executions} row per finished attempt, and the statistics rollup;
 *   <li>{@link ScaleQueries}: the queries users run, timed and explained, the way the API runs them
 *       or as plain SQL;
 *   <li>{@link ScalePages}: the operations console on the loaded store over HTTP: every page's REST
 *       calls, the Prometheus scrape, ten polling tabs and the CPU they cost PostgreSQL;
 *   <li>{@link ScaleRedisMemory}: the Redis memory one queued job costs, through the real {@link
 *       io.punctual.queue.ReadyQueue}.
 * </ol>
 *
 * <p>Usage: {@code ScaleBenchmark [--jobs N] [--queued M] [--json FILE] [--store DIR] [--reps R]
 * [--scrapes S] [--tabs T] [--tab-seconds W] [--no-payload-index] [--no-console]} (defaults
 * 10,000,000 jobs and 1,000,000 queue entries; see load-tests/bench). The full plans go to {@code
 * target/scale-explain.txt}.
 */
public final class ScaleBenchmark {
  private ScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    long jobs = 10_000_000;
    int queued = 1_000_000;
    Path json = null;
    Path store = null;
    int reps = 20;
    int scrapes = 50;
    int tabs = 10;
    int tabSeconds = 60;
    boolean payloadIndex = true;
    boolean console = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Long.parseLong(args[++i]);
        case "--queued" -> queued = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        case "--store" -> store = Path.of(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--scrapes" -> scrapes = Integer.parseInt(args[++i]);
        case "--tabs" -> tabs = Integer.parseInt(args[++i]);
        case "--tab-seconds" -> tabSeconds = Integer.parseInt(args[++i]);
        case "--no-payload-index" -> payloadIndex = false;
        case "--no-console" -> console = false;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("scale");
    out.put("jobs", jobs);
    Map<String, String> extra =
        Map.of("shared_buffers", "512MB", "max_wal_size", "8GB", "maintenance_work_mem", "512MB");
    if (store != null) {
      Files.createDirectories(store);
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(store, true, extra);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(url);
      BenchSupport.putPostgres(out, postgres);
      System.out.printf(
          Locale.ROOT,
          "%s shared_buffers=512MB, %d cores, JDK %s, load average %s, %,d jobs%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage(),
          jobs);
      try (Stores stores =
          new Stores(
              new PostgresSettings(url, "postgres", ""),
              new RedisSettings(redis.url(), "scale"),
              new QueueSettings(),
              Clock.systemUTC(),
              "scale")) {
        Migrations.migrate(stores.database().dataSource());
        if (ScaleStore.loaded(stores) == jobs) {
          System.out.printf(
              Locale.ROOT, "the store in %s holds the %,d jobs already%n", store, jobs);
        } else {
          out.set("load", ScaleStore.load(stores, jobs));
        }
        out.put("statsHourRows", ScaleStore.fillStatsHours(stores));
        out.set("queries", ScaleQueries.run(stores));
        if (console) {
          out.set(
              "console",
              ScalePages.run(
                  stores,
                  url,
                  redis.url(),
                  pg.port(),
                  ScaleQueries.TENANT,
                  new ScalePages.Options(reps, scrapes, tabs, tabSeconds, payloadIndex)));
        }
        try (Connection c = stores.database().dataSource().getConnection();
            Statement s = c.createStatement()) {
          if (store == null) {
            // Gigabytes of dirty pages would make the server's shutdown checkpoint outlast the
            // embedded server's stop timeout (and leave its directory behind): drop them first.
            s.execute("DROP TABLE jobs, job_executions");
          }
          s.execute("CHECKPOINT");
        }
      }
      if (queued > 0) {
        out.set("redis", ScaleRedisMemory.measure(redis.url(), queued));
      }
    }
    BenchSupport.writeJson(json, out);
  }
}
