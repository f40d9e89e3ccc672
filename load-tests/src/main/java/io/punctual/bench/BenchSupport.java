package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.json.Json;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.queue.Stores;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import io.punctual.store.JobSubmissions;
import io.punctual.store.secret.SecretSealer;
import io.punctual.store.secret.SigningSecrets;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.handler.registry.JobHandlers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/** What the benchmarks share: connections, waiting, the server's settings, a no-op job. */
final class BenchSupport {
  /** The secrets key of the benchmarks' processes (their PUNCTUAL_SECRETS_KEY): 32 bytes. */
  static final String SECRETS_KEY = "YmVuY2htYXJrcycgc2VjcmV0cyBrZXkgMzIgYnl0ZXM=";

  /** The admin key the benchmarks' API processes start with (their PUNCTUAL_BOOTSTRAP_KEY). */
  static final String API_KEY = "bench-admin-key-0123456789abcdefghijklmnopqrstuvwxyz";

  private BenchSupport() {}

  static HikariDataSource dataSource(String url, int pool) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(pool);
    return new HikariDataSource(config);
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  static void waitFor(Condition condition, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("benchmark did not finish within " + limit);
      }
      Thread.sleep(5);
    }
  }

  /** How many single-row commits {@link #postgresSettings} times. */
  private static final int COMMIT_PROBES = 300;

  /**
   * server_version, fsync and synchronous_commit, as PostgreSQL reports them, and {@code
   * commitMicros}: the mean wall time of one single-row commit, {@value #COMMIT_PROBES} in a row on
   * one connection. That is what a commit's flush costs on this machine, which sets how fast a
   * scheduler that commits every job on its own can go (db-scheduler), and so the ratios.
   */
  static Map<String, String> postgresSettings(String url) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    try (HikariDataSource ds = dataSource(url, 1);
        Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (String setting : new String[] {"server_version", "fsync", "synchronous_commit"}) {
        try (var rs = s.executeQuery("SHOW " + setting)) {
          rs.next();
          out.put(setting.equals("server_version") ? "version" : setting, rs.getString(1));
        }
      }
      c.setAutoCommit(true);
      s.execute("CREATE TABLE IF NOT EXISTS bench_commit_probe (n integer)");
      try {
        long started = System.nanoTime();
        for (int i = 0; i < COMMIT_PROBES; i++) {
          s.executeUpdate("INSERT INTO bench_commit_probe VALUES (" + i + ")");
        }
        long micros = (System.nanoTime() - started) / 1_000 / COMMIT_PROBES;
        out.put("commitMicros", Long.toString(micros));
      } finally {
        s.execute("DROP TABLE bench_commit_probe");
      }
    }
    return out;
  }

  static String describe(Map<String, String> postgres) {
    return "PostgreSQL "
        + postgres.get("version")
        + " fsync="
        + postgres.get("fsync")
        + " synchronous_commit="
        + postgres.get("synchronous_commit")
        + ", a single-row commit "
        + postgres.get("commitMicros")
        + " us";
  }

  /** The system's 1, 5 and 15 minute load averages, as /proc/loadavg gives them. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", -1);
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * The start of every scenario's JSON: scenario, date, JDK, cores and the load average at start.
   */
  static ObjectNode header(String scenario) {
    ObjectNode out = Json.mapper().createObjectNode();
    out.put("scenario", scenario);
    out.put("date", java.time.Instant.now().toString());
    out.put("jdk", Runtime.version().toString());
    out.put("cores", Runtime.getRuntime().availableProcessors());
    out.put("loadAverage", loadAverage());
    return out;
  }

  static void putPostgres(ObjectNode out, Map<String, String> postgres) {
    ObjectNode pg = out.putObject("postgres");
    postgres.forEach(pg::put);
  }

  /** Writes {@code out} to {@code file} (pretty-printed), when a file was asked for. */
  static void writeJson(Path file, ObjectNode out) throws IOException {
    if (file == null) {
      return;
    }
    Files.writeString(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
    System.out.println("wrote " + file);
  }

  /** VmRSS and VmHWM (peak) of a process in MB, from /proc/<pid>/status; -1 when gone. */
  static double[] rssMb(long pid) {
    double rss = -1;
    double hwm = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = kb(line) / 1024.0;
        } else if (line.startsWith("VmHWM:")) {
          hwm = kb(line) / 1024.0;
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
    return new double[] {rss, hwm};
  }

  /**
   * CPU seconds (user + system) a process has used, from /proc/<pid>/stat; with {@code children}
   * also those of its children that have exited and been waited for. 0 when the process is gone.
   */
  static double cpuSeconds(long pid, boolean children) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // fields after the command name (which is in parentheses and may hold spaces)
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      if (children) {
        ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]);
      }
      return ticks / 100.0; // USER_HZ, 100 on Linux
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /**
   * CPU seconds used so far by the PostgreSQL server listening on {@code port} (found by its
   * command line, "-p port"): the postmaster, its exited children and its live backends.
   */
  static double postgresCpuSeconds(int port) {
    String flag = "-p " + port;
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info()
                    .commandLine()
                    .map(
                        c ->
                            (c.contains("bin/postgres") && c.contains(flag + " "))
                                || c.endsWith(flag))
                    .orElse(false))
        .findFirst()
        .map(
            pm ->
                cpuSeconds(pm.pid(), true)
                    + pm.descendants().mapToDouble(d -> cpuSeconds(d.pid(), false)).sum())
        .orElse(0.0);
  }

  /** The pid of the Redis server at {@code url}, from its own INFO; -1 if it does not say. */
  static long redisPid(String url) {
    RedisConnector client = RedisConnector.standalone(url);
    try (RedisConnection c = client.connect()) {
      for (String line : c.sync().info("server").split("\r?\n", -1)) {
        if (line.startsWith("process_id:")) {
          return Long.parseLong(line.substring("process_id:".length()).trim());
        }
      }
      return -1;
    } finally {
      client.close();
    }
  }

  private static long kb(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  /**
   * The payload of the benchmarks' jobs: {@code -Dbench.payload=<JSON object>}, else {@code {}}
   * (the payload index's cost is measured with one that has keys).
   */
  static final String PAYLOAD = System.getProperty("bench.payload", "{}");

  /**
   * The built-in handlers over {@code stores}, the {@code http} one signing with the namespaces'
   * secrets (stored as they are: a benchmark's database is thrown away).
   */
  static JobHandlers builtIns(Stores stores, WorkerSettings settings) {
    SigningSecrets secrets =
        new SigningSecrets(stores.database().jdbi(), stores.clock(), SecretSealer.plain());
    return JobHandlers.withBuiltIns(
        settings,
        stores.clock(),
        new HttpHandler.Tenancy(
            WebhookSigner.caching(secrets::signingKeysOf, stores.clock()),
            stores.namespaces()::egressOf));
  }

  /**
   * With {@code -Dbench.payloadIndex=true}, builds the optional payload index (jobs_payload, what
   * {@code reaper.payloadIndex: true} builds) once the schema is migrated, to measure its cost.
   */
  static void payloadIndexIfAsked(String jdbcUrl) throws Exception {
    if (!Boolean.getBoolean("bench.payloadIndex")) {
      return;
    }
    try (HikariDataSource ds = dataSource(jdbcUrl, 1);
        Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE INDEX IF NOT EXISTS jobs_payload ON jobs USING gin (payload jsonb_path_ops)");
    }
    System.out.println("payload index jobs_payload built (bench.payloadIndex=true)");
  }

  static NewJob noop(Instant runAt, List<String> tags) {
    return NewJob.builder(NewJob.DEFAULT_NAMESPACE, "noop", runAt)
        .payload(Json.readTree(PAYLOAD))
        .maxAttempts(3)
        .idempotencyKey(null, "")
        .tags(tags)
        .build();
  }

  /**
   * Stores {@code jobs} jobs ({@code job} makes the i-th) through the real submit path, 1,000 per
   * transaction, and hands each batch's queue entries to {@code batchStored} (the Redis queue's
   * enqueue, or a list to enqueue later).
   */
  static void storeInBatches(
      Stores stores, int jobs, IntFunction<NewJob> job, Consumer<List<QueueEntry>> batchStored) {
    List<NewJob> batch = new ArrayList<>(1_000);
    for (int i = 0; i < jobs; i++) {
      batch.add(job.apply(i));
      if (batch.size() == 1_000 || i == jobs - 1) {
        List<QueueEntry> entries = new ArrayList<>(batch.size());
        for (JobSubmissions.Submitted s : stores.submissions().submit(batch)) {
          entries.add(QueueEntry.of(s.job()));
        }
        batchStored.accept(entries);
        batch.clear();
      }
    }
  }

  /** db-scheduler's table and indexes, as its documentation gives them for PostgreSQL, fresh. */
  static void createDbSchedulerTable(HikariDataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS scheduled_tasks");
      s.execute(
          """
          CREATE TABLE scheduled_tasks (
            task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,
            execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,
            last_success timestamptz, last_failure timestamptz, consecutive_failures int,
            last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,
            PRIMARY KEY (task_name, task_instance))""");
      s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
      s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
      s.execute(
          "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority desc, execution_time asc)");
    }
  }
}
