package io.punctual.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisConnector;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Where the stores' time went in a benchmark's round, printed after it when asked: PostgreSQL's
 * statements ({@code -Dbench.pgStats=true}, pg_stat_statements, which the benchmark's PostgreSQL
 * then preloads) and Redis's commands ({@code -Dbench.redisStats=true}, {@code INFO commandstats}:
 * the commands a script runs are counted besides the script's {@code evalsha}). Each print resets
 * the statistics it read, so the next shows one round.
 */
final class ServerStatistics {
  static final boolean PG = Boolean.getBoolean("bench.pgStats");
  static final boolean REDIS = Boolean.getBoolean("bench.redisStats");
  private static final int TOP = 12;

  private ServerStatistics() {}

  /** Forgets PostgreSQL's statement statistics so far (the next print starts from here). */
  static void resetStatements(String url) throws Exception {
    statements(url, false);
  }

  /**
   * Prints the statements that took the most server time since the last reset or print, with their
   * time per row, then resets.
   */
  static void printStatements(String url) throws Exception {
    statements(url, true);
  }

  private static void statements(String url, boolean print) throws Exception {
    try (HikariDataSource ds = BenchSupport.dataSource(url, 1);
        Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      if (print) {
        try (var rs =
            s.executeQuery(
                "SELECT d.datname, calls, rows, round(total_exec_time::numeric, 1),"
                    + " round((total_exec_time / greatest(rows, 1) * 1000)::numeric, 1),"
                    + " round((total_plan_time / greatest(rows, 1) * 1000)::numeric, 1),"
                    + " regexp_replace(left(query, 80), '\\s+', ' ', 'g')"
                    + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                    + " ORDER BY total_exec_time + total_plan_time DESC LIMIT "
                    + TOP)) {
          System.out.println(
              "  top statements (database, calls, rows, total ms, us/row, planning us/row, query):");
          while (rs.next()) {
            System.out.printf(
                "    %-11s %6d %7d %8s %7s %7s  %s%n",
                rs.getString(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7));
          }
        }
      }
      s.execute("SELECT pg_stat_statements_reset()");
    }
  }

  /** One line of {@code INFO commandstats}. */
  record Command(String name, long calls, long usec) {}

  /**
   * Prints the Redis commands that took the most time since the last print (or the server's start),
   * per job of the round ({@code jobs}), then resets Redis's statistics ({@code CONFIG RESETSTAT}).
   */
  static void printCommands(String redisUrl, long jobs) {
    RedisConnector client = RedisConnector.standalone(redisUrl);
    try (RedisConnection c = client.connect()) {
      List<Command> commands = parse(c.sync().info("commandstats"));
      commands.sort(Comparator.comparingLong(Command::usec).reversed());
      System.out.println("  top Redis commands (calls, total ms, us/call, calls/job, us/job):");
      for (Command cmd : commands.subList(0, Math.min(TOP, commands.size()))) {
        System.out.printf(
            Locale.ROOT,
            "    %-16s %8d %8.1f %7.2f %7.2f %7.2f%n",
            cmd.name(),
            cmd.calls(),
            cmd.usec() / 1000.0,
            (double) cmd.usec() / Math.max(1, cmd.calls()),
            (double) cmd.calls() / jobs,
            (double) cmd.usec() / jobs);
      }
      c.sync().configResetstat();
    } finally {
      client.close();
    }
  }

  /** {@code cmdstat_<name>:calls=N,usec=N,...} lines. */
  static List<Command> parse(String info) {
    List<Command> commands = new ArrayList<>();
    for (String line : info.split("\r?\n", -1)) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      long calls = 0;
      long usec = 0;
      for (String field : line.substring(colon + 1).split(",", -1)) {
        if (field.startsWith("calls=")) {
          calls = Long.parseLong(field.substring("calls=".length()));
        } else if (field.startsWith("usec=")) {
          usec = Long.parseLong(field.substring("usec=".length()));
        }
      }
      commands.add(new Command(line.substring("cmdstat_".length(), colon), calls, usec));
    }
    return commands;
  }
}
