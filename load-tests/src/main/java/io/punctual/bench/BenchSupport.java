package io.punctual.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.common.job.Backoff;
import io.punctual.common.job.NewJob;
import io.punctual.common.job.Priority;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the benchmarks share: connections, waiting, the server's settings, a no-op job. */
final class BenchSupport {
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

  /** server_version, fsync and synchronous_commit, as PostgreSQL reports them. */
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
    }
    return out;
  }

  static String describe(Map<String, String> postgres) {
    return "PostgreSQL "
        + postgres.get("version")
        + " fsync="
        + postgres.get("fsync")
        + " synchronous_commit="
        + postgres.get("synchronous_commit");
  }

  static NewJob noop(Instant runAt, List<String> tags) {
    return new NewJob(
        NewJob.DEFAULT_NAMESPACE,
        "noop",
        JsonNodeFactory.instance.objectNode(),
        runAt,
        Priority.NORMAL,
        3,
        Backoff.DEFAULT,
        null,
        null,
        "",
        tags,
        null);
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
