package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.store.Migrations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What PostgreSQL row-level security would cost as a second wall between namespaces, measured with
 * {@code pgbench} on the embedded PostgreSQL (fsync and synchronous_commit on) and Punctual's real
 * schema (its migrations). The wall considered: a policy {@code namespace =
 * current_setting('punctual.namespace')} on {@code jobs} and {@code job_executions}, a login role
 * without BYPASSRLS for the API, and each transaction naming its namespace with {@code
 * set_config(..., true)} first. Each workload runs as today (superuser-free role without RLS, the
 * namespace bound in the statement) and with the wall, both at the same time (two pgbench
 * processes, the same clients each), several rounds:
 *
 * <ul>
 *   <li>submit: one job inserted per transaction (the API's single submit);
 *   <li>read: one job read by id and namespace (GET /jobs/{id});
 *   <li>list: a page of 50 jobs of a namespace, newest first (GET /jobs, its real statement's
 *       shape).
 * </ul>
 *
 * <p>{@code load-tests/bench rls [--seconds S] [--rounds R] [--clients C] [--json FILE]}; defaults
 * 10 s, 3 rounds, 2 clients per side. Prints transactions per second and the ratio with ÷ without
 * per pair.
 */
public final class RlsBenchmark {
  private static final Pattern TPS =
      Pattern.compile("tps = ([0-9.]+) \\((?:without initial connection time|excluding)");
  private static final int PRELOADED = 100_000;
  private static final int NAMESPACES = 8;

  private RlsBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = 10;
    int rounds = 3;
    int clients = 2;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    String pgbench = findPgbench();
    ObjectNode out = BenchSupport.header("rls");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true)) {
      pg.createDatabaseIfMissing("punctual");
      String url = pg.jdbcUrl("punctual");
      var postgres = BenchSupport.postgresSettings(url);
      System.out.println("PostgreSQL: " + BenchSupport.describe(postgres));
      System.out.println("load: " + BenchSupport.loadAverage());
      prepare(url);
      Path dir = Files.createTempDirectory("punctual-rls");
      List<Workload> workloads =
          List.of(
              new Workload(
                  "submit",
                  write(dir, "submit", submit(false)),
                  write(dir, "submit-rls", submit(true))),
              new Workload(
                  "read", write(dir, "read", read(false)), write(dir, "read-rls", read(true))),
              new Workload(
                  "list", write(dir, "list", list(false)), write(dir, "list-rls", list(true))));
      ArrayNode results = out.putArray("workloads");
      for (Workload w : workloads) {
        double[] without = new double[rounds];
        double[] with = new double[rounds];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          // Both sides at the same time, for the same seconds, with the same clients each: what
          // the machine's neighbours take, they take from both (runs one after the other moved by
          // up to ±40 % on a busy machine, more than the difference looked for).
          double[] tps =
              runTogether(
                  pgbench,
                  pg.port(),
                  List.of("plain_api", "rls_api"),
                  List.of(w.plain, w.rls),
                  seconds,
                  clients);
          without[r] = tps[0];
          with[r] = tps[1];
          ratio[r] = with[r] / without[r];
          System.out.printf(
              "%-7s round %d: without %,.0f tps, with RLS %,.0f tps, with ÷ without %.3f%n",
              w.name, r + 1, without[r], with[r], ratio[r]);
        }
        ObjectNode n = results.addObject();
        n.put("name", w.name);
        n.put("medianWithoutTps", median(without));
        n.put("medianWithTps", median(with));
        n.put("medianRatio", median(ratio));
        ArrayNode pairs = n.putArray("ratios");
        Arrays.stream(ratio).forEach(pairs::add);
        System.out.printf(
            "%-7s median ratio %.3f (pairs %s)%n", w.name, median(ratio), Arrays.toString(ratio));
      }
      out.put("seconds", seconds);
      out.put("rounds", rounds);
      out.put("clients", clients);
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  private record Workload(String name, Path plain, Path rls) {}

  /**
   * The schema (migrations), today's partitions, preloaded jobs, and the two roles: {@code
   * plain_api} (no policy applies to it) and {@code rls_api} (the policies apply).
   */
  private static void prepare(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      try (var migrations = BenchSupport.dataSource(url, 2)) {
        Migrations.migrate(migrations);
      }
      s.execute("SELECT punctual_ensure_partitions(current_date - 1, current_date + 2)");
      s.execute(
          "INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,"
              + " max_attempts, backoff, created_at, updated_at)"
              + " SELECT md5(i::text)::uuid, now(), 'ns' || (i % "
              + NAMESPACES
              + " + 1), 'noop', '{}', 2, 'PENDING', now() + make_interval(secs => i % 3600), 3,"
              + " '{}', now(), now() FROM generate_series(1, "
              + PRELOADED
              + ") i");
      s.execute("ANALYZE jobs");
      for (String role : List.of("plain_api", "rls_api")) {
        s.execute("CREATE ROLE " + role + " LOGIN NOSUPERUSER NOBYPASSRLS");
        s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + role);
      }
      for (String table : List.of("jobs", "job_executions")) {
        s.execute("ALTER TABLE " + table + " ENABLE ROW LEVEL SECURITY");
        s.execute(
            "CREATE POLICY namespace_wall ON "
                + table
                + " TO rls_api USING (namespace = current_setting('punctual.namespace', true))"
                + " WITH CHECK (namespace = current_setting('punctual.namespace', true))");
        // plain_api is not the table's owner either: without this policy RLS would hide every row.
        s.execute(
            "CREATE POLICY everything ON "
                + table
                + " TO plain_api USING (true) WITH CHECK (true)");
      }
    }
  }

  private static String namespaceFirst(boolean rls) {
    return rls
        ? "BEGIN;\nSELECT set_config('punctual.namespace', 'ns' || :n, true);\n"
        : "BEGIN;\n";
  }

  private static String submit(boolean rls) {
    return "\\set n random(1, "
        + NAMESPACES
        + ")\n"
        + namespaceFirst(rls)
        + "INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,"
        + " max_attempts, backoff, created_at, updated_at) VALUES (gen_random_uuid(), now(), 'ns' ||"
        + " :n, 'noop', '{}', 2, 'PENDING', now(), 3, '{}', now(), now());\nCOMMIT;\n";
  }

  private static String read(boolean rls) {
    return "\\set i random(1, "
        + PRELOADED
        + ")\n\\set n :i % "
        + NAMESPACES
        + " + 1\n"
        + namespaceFirst(rls)
        + "SELECT id, status, payload, run_at FROM jobs WHERE id = md5(:i::text)::uuid AND"
        + " namespace = 'ns' || :n;\nCOMMIT;\n";
  }

  private static String list(boolean rls) {
    return "\\set n random(1, "
        + NAMESPACES
        + ")\n"
        + namespaceFirst(rls)
        + "SELECT * FROM jobs WHERE namespace = 'ns' || :n AND scheduled_at >= now() - interval"
        + " '1 day' AND scheduled_at < now() + interval '1 day' ORDER BY id DESC LIMIT 50;\n"
        + "COMMIT;\n";
  }

  private static Path write(Path dir, String name, String script) throws IOException {
    Path file = dir.resolve(name + ".sql");
    Files.writeString(file, script, StandardCharsets.UTF_8);
    return file;
  }

  /** Runs one pgbench per (role, script) at once; their transactions per second, in order. */
  private static double[] runTogether(
      String pgbench, int port, List<String> roles, List<Path> scripts, int seconds, int clients)
      throws Exception {
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < roles.size(); i++) {
      List<String> command =
          List.of(
              pgbench,
              "-h",
              "127.0.0.1",
              "-p",
              Integer.toString(port),
              "-U",
              roles.get(i),
              "-n",
              "-M",
              "prepared",
              "-c",
              Integer.toString(clients),
              "-j",
              Integer.toString(clients),
              "-T",
              Integer.toString(seconds),
              "-f",
              scripts.get(i).toString(),
              "punctual");
      processes.add(new ProcessBuilder(command).redirectErrorStream(true).start());
    }
    double[] tps = new double[processes.size()];
    for (int i = 0; i < processes.size(); i++) {
      Process p = processes.get(i);
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("pgbench failed:\n" + output);
      }
      Matcher m = TPS.matcher(output);
      if (!m.find()) {
        throw new IllegalStateException("no tps in pgbench's output:\n" + output);
      }
      tps[i] = Double.parseDouble(m.group(1));
    }
    return tps;
  }

  private static String findPgbench() {
    for (String candidate : List.of("/usr/bin/pgbench", "/usr/lib/postgresql/15/bin/pgbench")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "pgbench not found: install Debian's postgresql-client (apt-get install postgresql-client)");
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
