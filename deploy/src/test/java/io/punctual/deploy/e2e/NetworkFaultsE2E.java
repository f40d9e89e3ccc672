package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Network faults between real processes on this machine: PostgreSQL 18, Redis 6.2, the API, two
 * workers, a reaper and a planner, each in a network namespace of its own ({@link NetworkLab}: a
 * star of veth pairs around a routing hub), and a callback server whose log is the handlers' side
 * effects. While jobs are submitted all along, in turn: a worker is cut off from Redis only, from
 * PostgreSQL only, from both; the API is cut off from Redis (it commits, then cannot enqueue); the
 * PostgreSQL link is slowed and lossy; PostgreSQL is cut off from everyone. Every cut heals. After
 * each scenario a checker reads PostgreSQL and the side effects: no accepted job lost, none stuck,
 * no result written by a stale attempt, duplicates only where an attempt was recorded LOST; at the
 * end, each occurrence of a one-second schedule planned exactly once. The report is written to
 * target/network-faults-report.md and .json.
 *
 * <p>Needs root and iproute2 (`ip`): it fails without them, unless run with {@code
 * -Dpunctual.faults.netns=skip} (docs/network-faults.md). The set-up it shares with {@link
 * PostgresFailoverE2E} is {@link NetworkHarness}'s.
 */
// The longest suites start first, so the short ones fill in beside them (deploy/pom.xml).
@Order(1)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class NetworkFaultsE2E {
  private static final Duration HOLD = Duration.ofSeconds(6);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, PunctualProcess> roles = new HashMap<>();
  private final List<Map<String, Object>> scenarios = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private final Map<String, Object> setup = new LinkedHashMap<>();
  private NetworkHarness harness;
  private NetworkLab lab;
  private String api;
  private String callback;
  private JobLoad load;
  private UUID scheduleId;
  private FaultChecker checker;
  private Path pgControl;

  @Test
  void noAcceptedJobIsLostThroughNetworkFaults() throws Exception {
    harness = NetworkHarness.forTest("NetworkFaultsE2E", "the network faults were");
    try {
      run();
    } catch (Exception | Error e) {
      failures.add("the harness stopped: " + e);
      throw e;
    } finally {
      harness.close();
      NetworkFaultReport.write(setup, scenarios, failures);
      NamespacedServers.keepLogs(harness.dir, Path.of("target", "network-faults-logs"));
    }
    assertThat(failures).as("broken promises (target/network-faults-report.md)").isEmpty();
  }

  private void run() throws Exception {
    long started = System.nanoTime();
    Path dir = harness.dir;
    lab = harness.lab(List.of("pg", "redis", "api", "w1", "w2", "ctl", "sink"));
    setup.put("namespaces", lab.prefix() + "-{hub,pg,redis,api,w1,w2,ctl,sink}");
    Path data = dir.resolve("pg-data");
    Path bin = NamespacedServers.initPostgres(data);
    pgControl = dir.resolve("pg-link");
    Files.writeString(pgControl, "0 0 0");
    harness.addAll(
        NamespacedServers.startPostgres(
            lab, "pg", bin, data, dir, dir.resolve("pg.sock"), pgControl));
    harness.add(NamespacedServers.startRedis(lab, "redis", dir));
    Relay pgLocal = harness.local("tcp:127.0.0.1:0", "unix:" + dir.resolve("pg.sock"));
    String jdbcUrl = "jdbc:postgresql://127.0.0.1:" + pgLocal.port() + "/punctual";
    checker = new FaultChecker(jdbcUrl);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> checker.count("SELECT 1") == 1);

    callback = harness.startSideEffects();

    String pgUrl =
        "jdbc:postgresql://" + lab.address("pg") + ":" + NamespacedServers.PG_PORT + "/punctual";
    harness.migrate(pgUrl);
    PunctualProcess apiProcess = harness.startApi(pgUrl);
    PunctualProcess w1 =
        harness.role(pgUrl, "w1", "w1", Map.of("PUNCTUAL_ADMIN_PORT", "8081"), "worker");
    PunctualProcess w2 =
        harness.role(pgUrl, "w2", "w2", Map.of("PUNCTUAL_ADMIN_PORT", "8081"), "worker");
    PunctualProcess reaper =
        harness.role(pgUrl, "ctl", "reaper", Map.of("PUNCTUAL_ADMIN_PORT", "8081"), "reaper");
    PunctualProcess planner =
        harness.role(pgUrl, "ctl", "planner", Map.of("PUNCTUAL_ADMIN_PORT", "8082"), "planner");
    api = harness.exposeApi();
    apiProcess.awaitOutput("(Punctual api is running)", NetworkHarness.START);
    planner.awaitOutput("(Punctual planner is running)", NetworkHarness.START);
    reaper.awaitOutput("(Punctual reaper is running)", NetworkHarness.START);
    harness.awaitRegistered(w1, jdbcUrl);
    harness.awaitRegistered(w2, jdbcUrl);
    roles.put("w1", w1);
    roles.put("w2", w2);
    setup.put("start-up seconds", Timing.seconds(System.nanoTime() - started));

    HttpResponse<String> schedule =
        JobLoad.send(
            api + "/api/v1/schedules", "{\"name\":\"tick\",\"every\":\"PT1S\",\"type\":\"noop\"}");
    assertThat(schedule.statusCode()).as(schedule.body()).isEqualTo(201);
    scheduleId = UUID.fromString(JSON.readTree(schedule.body()).get("id").asText());

    try (JobLoad jobs = new JobLoad(api, callback, 3_000, Duration.ofMillis(300))) {
      load = jobs;
      scenario("baseline", "no fault", null, () -> {}, () -> {});
      scenario(
          "worker-redis",
          "worker w1 cut off from Redis only",
          "w1",
          () -> lab.cut("w1", "redis"),
          () -> lab.heal("w1", "redis"));
      scenario(
          "worker-postgres",
          "worker w1 cut off from PostgreSQL only",
          "w1",
          () -> lab.cut("w1", "pg"),
          () -> lab.heal("w1", "pg"));
      scenario(
          "worker-both",
          "worker w1 cut off from PostgreSQL and Redis",
          "w1",
          () -> {
            lab.cut("w1", "pg");
            lab.cut("w1", "redis");
          },
          () -> {
            lab.heal("w1", "pg");
            lab.heal("w1", "redis");
          });
      scenario(
          "api-redis",
          "API cut off from Redis: it commits each submit, then cannot enqueue it",
          null,
          () -> lab.cut("api", "redis"),
          () -> lab.heal("api", "redis"));
      String[] degradation = new String[1];
      scenario(
          "postgres-degraded",
          "PostgreSQL link: 40 ms ± 10 ms latency, 2 % loss",
          null,
          () -> degradation[0] = degrade(),
          this::restore);
      scenarios.get(scenarios.size() - 1).put("how", degradation[0]);
      scenario(
          "postgres-partition",
          "PostgreSQL cut off from every other host, then healed",
          null,
          () -> {
            for (String h : List.of("api", "w1", "w2", "ctl")) {
              lab.cut(h, "pg");
            }
          },
          () -> {
            for (String h : List.of("api", "w1", "w2", "ctl")) {
              lab.heal(h, "pg");
            }
          });
    }

    // each occurrence of the one-second schedule planned exactly once, through every fault
    JobLoad.send(api + "/api/v1/schedules/" + scheduleId + "/pause", "{}");
    FaultChecker.Occurrences occurrences = checker.occurrences(scheduleId, 1);
    Map<String, Object> schedules = new LinkedHashMap<>();
    schedules.put("fire times planned", occurrences.fireTimes());
    schedules.put("fire times with two jobs", occurrences.jobsTwice());
    schedules.put("fire times missing between the first and the last", occurrences.gaps());
    schedules.put("fire times recorded missed", occurrences.missed());
    setup.put("schedule PT1S", schedules);
    if (occurrences.jobsTwice() != 0 || occurrences.gaps() != 0 || occurrences.fireTimes() == 0) {
      failures.add("schedule occurrences: " + schedules);
    }
    setup.put("total seconds", Timing.seconds(System.nanoTime() - started));
  }

  /**
   * One scenario: load for a second, the fault for {@link #HOLD}, healed, then until the cut-off
   * worker claims again (or, with none, until the jobs accepted before the heal are final); then
   * until every job accepted during the scenario is final, and the checker.
   */
  private void scenario(String name, String fault, String cutOff, FaultStep inject, FaultStep heal)
      throws Exception {
    JobLoad.Round round = load.newRound();
    Set<UUID> ids = round.accepted();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("scenario", name);
    r.put("fault", fault);
    Thread.sleep(1_000); // load before the fault
    if (cutOff != null) {
      // cut while the worker is in the middle of a slow handler, so the fault catches it working
      r.put(
          "running on " + cutOff + " when cut",
          Timing.awaitSeconds(
                  () ->
                      checker.count(
                              "SELECT count(*) FROM jobs j JOIN workers w ON w.id = j.worker_id"
                                  + " WHERE j.status = 'RUNNING' AND w.pid = "
                                  + roles.get(cutOff).pid()
                                  + " AND j.payload->>'kind' = 'slow'"
                                  + " AND j.started_at > now() - interval '1 second'")
                          > 0,
                  Duration.ofSeconds(30))
              != null);
    }
    String cutAt = dbNow();
    inject.run();
    Thread.sleep(HOLD.toMillis()); // the fault lasts this long
    Set<UUID> beforeHeal = Set.copyOf(ids);
    String healedAt = dbNow();
    heal.run();
    long healed = System.nanoTime();
    Double recovery;
    if (cutOff != null) {
      long pid = roles.get(cutOff).pid();
      r.put(
          "jobs started by " + cutOff + " during the cut",
          checker.count(startedBy(pid, cutAt) + " AND a.started_at < " + healedAt));
      recovery =
          Timing.awaitSeconds(
              () -> checker.count(startedBy(pid, healedAt)) > 0, Duration.ofSeconds(60));
      r.put("time for " + cutOff + " to claim again after the heal (s)", recovery);
    } else {
      recovery = Timing.awaitSeconds(() -> allFinal(beforeHeal), Duration.ofSeconds(60));
      r.put("time for the jobs accepted before the heal to be final, after it (s)", recovery);
    }
    Thread.sleep(1_000); // load after the heal
    load.newRound(); // what is submitted from now on belongs to no scenario
    Double drained = Timing.awaitSeconds(() -> allFinal(ids), Duration.ofSeconds(60));
    r.put(
        "time for every job of the scenario to be final, after the heal (s)",
        drained == null ? null : Timing.seconds(System.nanoTime() - healed));
    r.put("submits answered", round.tally());
    FaultChecker.Outcome outcome = checker.check(ids, harness.effects().effects());
    r.putAll(outcome.asMap());
    if (cutOff != null) {
      r.put(
          "attempts of " + cutOff + " recorded LOST",
          checker.count(
              "SELECT count(*) FROM job_executions e JOIN workers w ON w.id = e.worker_id"
                  + " WHERE e.status = 'LOST' AND w.pid = "
                  + roles.get(cutOff).pid()
                  + " AND e.finished_at >= "
                  + cutAt));
    }
    scenarios.add(r);
    List<String> broken = new ArrayList<>();
    if (outcome.missing() > 0) broken.add(outcome.missing() + " accepted jobs lost");
    if (outcome.notFinal() > 0) broken.add(outcome.notFinal() + " jobs stuck");
    if (outcome.staleResults() > 0) broken.add(outcome.staleResults() + " stale results");
    if (outcome.duplicates() != outcome.duplicatesExplained()) {
      broken.add(
          (outcome.duplicates() - outcome.duplicatesExplained())
              + " duplicates without a LOST attempt");
    }
    if (outcome.succeededWithoutEffect() > 0) {
      broken.add(outcome.succeededWithoutEffect() + " SUCCEEDED without their side effect");
    }
    if (outcome.accepted() == 0) broken.add("no job accepted during the scenario");
    if (recovery == null) broken.add("no recovery within 60 s of the heal");
    if (!round.unexpected().isEmpty()) {
      broken.add("answers other than 201 and 503 problem+json: " + round.unexpected());
    }
    if (name.equals("baseline") && (outcome.lostAttempts() > 0 || outcome.duplicates() > 0)) {
      broken.add("lost attempts or duplicates without any fault");
    }
    Object lostOfCutOff = r.get("attempts of " + cutOff + " recorded LOST");
    if (name.equals("worker-postgres") && !Long.valueOf(0).equals(lostOfCutOff)) {
      // docs/recovery.md, Guarantees: a database outage alone gets nothing rescued
      broken.add("attempts rescued from a worker that still held its Redis leases");
    }
    if (name.equals("worker-both") && Long.valueOf(0).equals(lostOfCutOff)) {
      broken.add("the partitioned worker's running attempts were never rescued");
    }
    // the one-second schedule so far: no fire time with two jobs, none missing
    FaultChecker.Occurrences occurrences = checker.occurrences(scheduleId, 1);
    r.put(
        "schedule occurrences so far (fire times / twice / missing)",
        occurrences.fireTimes() + " / " + occurrences.jobsTwice() + " / " + occurrences.gaps());
    if (occurrences.jobsTwice() != 0 || occurrences.gaps() != 0) {
      broken.add("schedule occurrences planned twice or missing: " + occurrences);
    }
    r.put("broken promises", broken);
    for (String b : broken) {
      failures.add(name + ": " + b);
    }
  }

  @FunctionalInterface
  private interface FaultStep {
    void run() throws Exception;
  }

  /** tc netem where the kernel has it; otherwise the PostgreSQL relay's own delay and stalls. */
  private String degrade() throws IOException {
    if (lab.netem("pg", "delay 40ms 10ms loss 2%")) {
      return "tc netem delay 40ms 10ms loss 2% on both ends of the PostgreSQL link";
    }
    Files.writeString(pgControl, "40 10 2");
    return "the kernel has no netem (tc: \"Specified qdisc kind is unknown\"): the relay in"
        + " PostgreSQL's namespace held each chunk 40 ms ± 10 ms, and 2 % of chunks 200 ms more"
        + " (one TCP retransmission timeout)";
  }

  private void restore() throws IOException {
    lab.clearNetem("pg");
    Files.writeString(pgControl, "0 0 0");
  }

  private static String startedBy(long pid, String since) {
    return "SELECT count(*) FROM (SELECT worker_id, started_at FROM jobs WHERE started_at IS NOT NULL"
        + " UNION ALL SELECT worker_id, started_at FROM job_executions) a"
        + " JOIN workers w ON w.id = a.worker_id WHERE w.pid = "
        + pid
        + " AND a.started_at >= "
        + since;
  }

  private boolean allFinal(Set<UUID> ids) throws Exception {
    if (ids.isEmpty()) {
      return true;
    }
    return checker.count(
            "SELECT count(*) FROM jobs WHERE finished_at IS NULL AND id IN ("
                + String.join(",", ids.stream().map(id -> "'" + id + "'").toList())
                + ")")
        == 0;
  }

  /** PostgreSQL's clock now, as an SQL expression (the processes' times are its times). */
  private String dbNow() throws Exception {
    long micros = checker.count("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
    return "to_timestamp(" + micros + " / 1000000.0)";
  }
}
