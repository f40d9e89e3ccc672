package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.app.PunctualJobs;
import io.punctual.bench.SubmitBenchmark.Cpu;
import io.punctual.bench.SubmitBenchmark.Result;
import io.punctual.client.JobRequest;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;

/**
 * What a job submitted in the caller's own transaction costs against a REST submit (issue 34), in
 * the same run on the same embedded PostgreSQL (fsync and synchronous_commit on) and Redis: C
 * clients submitting one no-op job each time, as fast as answered, over REST to a {@code punctual
 * api} process, and in this process with {@code PunctualJobs.submit(connection, request)} in a
 * transaction of their own (begin, submit, commit, enqueue), alternated in R pairs. For each:
 * submits/s, latency as the caller sees it, and CPU per submit (the API process, PostgreSQL, this
 * process: the REST client, or the app doing the transactional submit).
 *
 * <p>Usage: {@code TxSubmitBenchmark [--seconds S] [--clients C] [--rounds R] [--json FILE]};
 * defaults 10 s, 8 clients, 3 pairs after a warm-up of each.
 */
public final class TxSubmitBenchmark {
  private TxSubmitBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = 10;
    int clients = 8;
    int rounds = 3;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("txsubmit");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(pg.jdbcUrl("punctual"));
      try (PunctualProcesses processes =
              new PunctualProcesses(pg.jdbcUrl("punctual"), redis.url(), true);
          HikariDataSource pool = BenchSupport.dataSource(pg.jdbcUrl("punctual"), clients + 2)) {
        SubmitBenchmark.apiKey = BenchSupport.API_KEY;
        processes.migrate();
        PunctualProcesses.Role api = processes.startApi();
        String base = "http://127.0.0.1:" + api.httpPort() + "/api/v1/jobs";
        BenchSupport.waitFor(() -> SubmitBenchmark.ping(base), Duration.ofMinutes(2));
        System.out.printf(
            Locale.ROOT,
            "%s, %d cores, JDK %s, load average %s; %d clients, %d s per side, %d pairs%n",
            BenchSupport.describe(postgres),
            Runtime.getRuntime().availableProcessors(),
            Runtime.version(),
            BenchSupport.loadAverage(),
            clients,
            seconds,
            rounds);
        Cpu cpu = new Cpu(api.pid(), pg.port());
        String body = "{\"type\":\"noop\",\"payload\":" + BenchSupport.PAYLOAD + "}";
        try (PunctualJobs jobs =
            PunctualJobs.builder()
                .dataSource(pool)
                .redisUrl(redis.url())
                .clock(Clock.systemUTC())
                .build()) {
          SubmitBenchmark.phase(base, body, clients, -20_000, 1, cpu); // warm-ups, not counted
          transactional(jobs, pool, clients, -20_000, cpu);
          ArrayNode pairs = out.putArray("pairs");
          for (int round = 1; round <= rounds; round++) {
            boolean txFirst = round % 2 == 0;
            Result tx = null;
            Result rest = null;
            for (int side = 0; side < 2; side++) {
              if ((side == 0) == txFirst) {
                tx = transactional(jobs, pool, clients, seconds, cpu);
              } else {
                rest = SubmitBenchmark.phase(base, body, clients, seconds, 1, cpu);
              }
            }
            SubmitBenchmark.print("round " + round + " REST", rest);
            SubmitBenchmark.print("round " + round + " in a transaction", tx);
            ObjectNode pair = pairs.addObject();
            pair.set("rest", rest.toJson());
            pair.put("restPerSecond", Math.round(rest.jobsPerSecond()));
            pair.set("transactional", tx.toJson());
            pair.put("transactionalPerSecond", Math.round(tx.jobsPerSecond()));
            double[] r = rest.cpuMicrosPerRequest();
            double[] t = tx.cpuMicrosPerRequest();
            System.out.printf(
                Locale.ROOT,
                "  CPU per submit: REST %.0f us (API %.0f + PostgreSQL %.0f + client %.0f),"
                    + " in a transaction %.0f us (PostgreSQL %.0f + app %.0f): ratio %.2f;"
                    + " p50 %.2f against %.2f ms%n",
                r[0] + r[1] + r[2],
                r[0],
                r[1],
                r[2],
                t[0] + t[1] + t[2],
                t[1],
                t[2],
                (t[0] + t[1] + t[2]) / (r[0] + r[1] + r[2]),
                tx.at(0.5),
                rest.at(0.5));
          }
        }
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  /**
   * {@code clients} clients each submitting one job per transaction of its own (a connection of
   * {@code pool}: begin, submit, commit, enqueue) for {@code seconds} (negative: a warm-up of at
   * least that many submits), the closed loop {@link SubmitBenchmark#phase} runs over REST.
   */
  static Result transactional(
      PunctualJobs jobs, HikariDataSource pool, int clients, int seconds, Cpu cpu)
      throws Exception {
    JobRequest request =
        JobRequest.builder("noop").payload(Json.readTree(BenchSupport.PAYLOAD)).build();
    return SubmitBenchmark.closedLoop(
        clients,
        seconds,
        1,
        cpu,
        () ->
            new SubmitBenchmark.LoopClient() {
              @Override
              public void send(Queue<String> failures) {
                try (Connection connection = pool.getConnection()) {
                  connection.setAutoCommit(false);
                  var submission = jobs.submit(connection, request);
                  connection.commit();
                  submission.enqueue();
                } catch (Exception e) {
                  failures.add(e.toString());
                }
              }

              @Override
              public void close() {}
            });
  }
}
