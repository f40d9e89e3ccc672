package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.punctual.bench.LagBenchmark.Percentiles;
import io.punctual.bench.PunctualProcesses.Role;
import io.punctual.common.json.Json;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * How fast Punctual recovers, on separate processes as in production (an API, worker processes with
 * their default settings, each also watching for dead workers; embedded PostgreSQL with durable
 * commits and Redis):
 *
 * <ol>
 *   <li><b>kill</b>: N jobs (default 60) running on one worker process, killed with SIGKILL; for
 *       each job, the time from the kill until it runs again on another worker (its new attempt's
 *       {@code started_at}); K times (default 3), each time killing the worker that runs them now
 *       and starting a fresh one, so the kills fall at different moments of the workers' reports;
 *   <li><b>pause</b>: the worker now running them stopped with SIGSTOP for 2 s, P times (default
 *       3), each followed by its ttl and more: how many of its attempts were rescued (0 expected);
 *   <li><b>cancel</b>: C running jobs (default 120) cancelled over REST one after the other: for
 *       each, the time from the cancel's commit (the job's {@code finished_at}) to the end of its
 *       interrupted attempt (the execution row's {@code finished_at}).
 * </ol>
 *
 * <p>Usage: {@code RecoveryBenchmark [--jobs N] [--kills K] [--pauses P] [--pause-ms M] [--cancels
 * C] [--json FILE]}.
 */
public final class RecoveryBenchmark {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** worker.livenessTtl's default plus reaper.deathCheckInterval's plus a margin. */
  private static final Duration AFTER_PAUSE = Duration.ofSeconds(9);

  private RecoveryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int jobs = 60;
    int pauses = 3;
    long pauseMs = 2000;
    int cancels = 120;
    int kills = 3;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--pauses" -> pauses = Integer.parseInt(args[++i]);
        case "--pause-ms" -> pauseMs = Long.parseLong(args[++i]);
        case "--cancels" -> cancels = Integer.parseInt(args[++i]);
        case "--kills" -> kills = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ObjectNode out = BenchSupport.header("recovery");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(null, true);
        EmbeddedRedisServer redis = EmbeddedRedisServer.start(null)) {
      pg.createDatabaseIfMissing("punctual");
      Map<String, String> postgres = BenchSupport.postgresSettings(pg.jdbcUrl("punctual"));
      System.out.printf(
          Locale.ROOT,
          "%s, %d cores, JDK %s, load average %s%n",
          BenchSupport.describe(postgres),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          BenchSupport.loadAverage());
      try (PunctualProcesses processes =
              new PunctualProcesses(pg.jdbcUrl("punctual"), redis.url());
          HikariDataSource db = BenchSupport.dataSource(pg.jdbcUrl("punctual"), 2)) {
        processes.migrate();
        Role api = processes.startApi();
        Role doomed = processes.startWorkers(1).get(0);
        Run run = new Run(api, db);

        List<UUID> ids = run.submitSleeping(jobs);
        run.awaitRunning(ids, 1, Duration.ofMinutes(1));
        List<Role> alive = new ArrayList<>(processes.startWorkers(2));
        Role victim = doomed;
        List<Long> rescueMs = new ArrayList<>();
        for (int k = 0; k < kills; k++) {
          List<UUID> onVictim = run.runningOn(victim, ids);
          Map<UUID, Integer> before = run.attempts(onVictim);
          victim.process().destroyForcibly();
          Instant killed = Instant.now();
          alive.remove(victim);
          run.awaitNextAttempt(before, Duration.ofMinutes(2));
          for (long ms : run.startedSince(before, killed)) {
            rescueMs.add(ms);
          }
          alive.addAll(processes.startWorkers(1));
          victim = run.busiest(alive, ids);
        }
        Percentiles kill = Percentiles.of(rescueMs.stream().mapToLong(Long::longValue).toArray());
        System.out.printf(
            Locale.ROOT,
            "%d kill -9 of the worker running %d jobs (%d rescues): running again elsewhere after"
                + " ms p50 %.0f  p99 %.0f  max %.0f  min %.0f%n",
            kills,
            jobs,
            rescueMs.size(),
            kill.p50(),
            kill.p99(),
            kill.max(),
            kill.min());
        out.put("kills", kills);
        out.put("killedJobs", rescueMs.size());
        out.set("killToRunningAgainMs", kill.toJson());
        List<Role> survivors = alive;

        int rescued = 0;
        for (int p = 0; p < pauses; p++) {
          Map<UUID, Integer> before = run.attempts(ids);
          Role paused = run.busiest(survivors, ids);
          signal("STOP", paused.pid());
          Thread.sleep(pauseMs);
          signal("CONT", paused.pid());
          Thread.sleep(AFTER_PAUSE.toMillis());
          Map<UUID, Integer> after = run.attempts(ids);
          for (UUID id : ids) {
            if (!after.get(id).equals(before.get(id))) {
              rescued++;
            }
          }
        }
        System.out.printf(
            Locale.ROOT,
            "%d pauses (SIGSTOP) of %d ms of the worker running them: %d attempts rescued%n",
            pauses,
            pauseMs,
            rescued);
        out.put("pauses", pauses);
        out.put("pauseMs", pauseMs);
        out.put("rescuedAfterPauses", rescued);

        List<UUID> toCancel = run.submitSleeping(cancels);
        run.awaitRunning(toCancel, 1, Duration.ofMinutes(1));
        for (UUID id : toCancel) {
          run.cancel(id);
          Thread.sleep(10);
        }
        long[] cancelMs = run.cancelLatencies(toCancel, Duration.ofMinutes(1));
        Percentiles cancel = Percentiles.of(cancelMs);
        System.out.printf(
            Locale.ROOT,
            "cancel of %d running jobs over REST: handler interrupted and its attempt ended after"
                + " ms p50 %.0f  p99 %.0f  max %.0f%n",
            cancels,
            cancel.p50(),
            cancel.p99(),
            cancel.max());
        out.put("cancelledJobs", cancels);
        out.set("cancelToInterruptMs", cancel.toJson());
      }
      BenchSupport.putPostgres(out, postgres);
    }
    BenchSupport.writeJson(json, out);
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + name + " " + pid + " failed");
    }
  }

  /** The REST calls and the reads of one run. */
  private record Run(Role api, HikariDataSource db) {
    private String base() {
      return "http://127.0.0.1:" + api.httpPort() + "/api/v1/jobs";
    }

    List<UUID> submitSleeping(int count) throws Exception {
      List<UUID> ids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        HttpResponse<String> r =
            send(
                HttpRequest.newBuilder(URI.create(base()))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"type\":\"sleep\",\"payload\":{\"ms\":1800000},\"maxAttempts\":5}")));
        if (r.statusCode() != 201) {
          throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
        }
        ids.add(UUID.fromString(Json.mapper().readTree(r.body()).path("id").asText()));
      }
      return ids;
    }

    void cancel(UUID id) throws Exception {
      HttpResponse<String> r =
          send(
              HttpRequest.newBuilder(URI.create(base() + "/" + id + "/cancel"))
                  .POST(HttpRequest.BodyPublishers.noBody()));
      if (r.statusCode() != 200) {
        throw new IllegalStateException("cancel answered " + r.statusCode() + ": " + r.body());
      }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
      try {
        return HTTP.send(
            request
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + BenchSupport.API_KEY)
                .build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }

    /** Waits until every job runs its attempt {@code attempt} (or a later one). */
    void awaitRunning(List<UUID> ids, int attempt, Duration limit) throws Exception {
      BenchSupport.waitFor(
          () -> {
            int n = 0;
            for (var e : rows(ids).values()) {
              if (e.status.equals("RUNNING") && e.attempt >= attempt) {
                n++;
              }
            }
            return n == ids.size();
          },
          limit);
    }

    /** Waits until every job runs the attempt after the one {@code before} says. */
    void awaitNextAttempt(Map<UUID, Integer> before, Duration limit) throws Exception {
      BenchSupport.waitFor(
          () -> {
            Map<UUID, JobRow> rows = rows(List.copyOf(before.keySet()));
            return before.entrySet().stream()
                .allMatch(
                    e -> {
                      JobRow r = rows.get(e.getKey());
                      return r.status.equals("RUNNING") && r.attempt == e.getValue() + 1;
                    });
          },
          limit);
    }

    /** Per job, ms from {@code since} to the start of its attempt after the one {@code before}. */
    long[] startedSince(Map<UUID, Integer> before, Instant since) throws Exception {
      Map<UUID, JobRow> rows = rows(List.copyOf(before.keySet()));
      long[] ms = new long[before.size()];
      int i = 0;
      for (var e : before.entrySet()) {
        JobRow row = rows.get(e.getKey());
        if (row.attempt != e.getValue() + 1) {
          throw new IllegalStateException("job " + e.getKey() + " at attempt " + row.attempt);
        }
        ms[i++] = Duration.between(since, row.startedAt).toMillis();
      }
      return ms;
    }

    /** Those of {@code ids} running on {@code worker} now (its pid is in its worker id). */
    List<UUID> runningOn(Role worker, List<UUID> ids) throws Exception {
      String mark = "-" + worker.pid() + "-";
      List<UUID> on = new ArrayList<>();
      rows(ids)
          .forEach(
              (id, r) -> {
                if (r.status.equals("RUNNING") && r.workerId.contains(mark)) {
                  on.add(id);
                }
              });
      return on;
    }

    Map<UUID, Integer> attempts(List<UUID> ids) throws Exception {
      Map<UUID, Integer> out = new HashMap<>();
      rows(ids).forEach((id, row) -> out.put(id, row.attempt));
      return out;
    }

    /** The worker process that runs most of these jobs now (its pid is in its worker id). */
    Role busiest(List<Role> workers, List<UUID> ids) throws Exception {
      Map<UUID, JobRow> rows = rows(ids);
      Role best = workers.get(0);
      long most = -1;
      for (Role w : workers) {
        String mark = "-" + w.pid() + "-";
        long n = rows.values().stream().filter(r -> r.workerId.contains(mark)).count();
        if (n > most) {
          most = n;
          best = w;
        }
      }
      return best;
    }

    /** Per job, ms from its cancel to the end of its cancelled attempt (its execution row). */
    long[] cancelLatencies(List<UUID> ids, Duration limit) throws Exception {
      Map<UUID, Long> ms = new HashMap<>();
      BenchSupport.waitFor(
          () -> {
            ms.clear();
            try (Connection c = db.getConnection();
                PreparedStatement s =
                    c.prepareStatement(
                        "SELECT j.id, EXTRACT(EPOCH FROM (e.finished_at - j.finished_at)) * 1000"
                            + " FROM jobs j JOIN job_executions e ON e.job_id = j.id"
                            + " AND e.attempt = j.attempt WHERE j.id = ANY(?)"
                            + " AND j.status = 'CANCELLED'")) {
              s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
              try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                  ms.put(rs.getObject(1, UUID.class), Math.round(rs.getDouble(2)));
                }
              }
            }
            return ms.size() == ids.size();
          },
          limit);
      return ids.stream().mapToLong(ms::get).toArray();
    }

    private record JobRow(String status, int attempt, String workerId, Instant startedAt) {}

    private Map<UUID, JobRow> rows(List<UUID> ids) throws Exception {
      Map<UUID, JobRow> out = new HashMap<>();
      try (Connection c = db.getConnection();
          PreparedStatement s =
              c.prepareStatement(
                  "SELECT id, status, attempt, COALESCE(worker_id, ''), started_at FROM jobs"
                      + " WHERE id = ANY(?)")) {
        s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            var started = rs.getTimestamp(5);
            out.put(
                rs.getObject(1, UUID.class),
                new JobRow(
                    rs.getString(2),
                    rs.getInt(3),
                    rs.getString(4),
                    started == null ? Instant.EPOCH : started.toInstant()));
          }
        }
      }
      return out;
    }
  }
}
