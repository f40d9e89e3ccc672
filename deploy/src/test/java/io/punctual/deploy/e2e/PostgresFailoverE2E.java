package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
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
 * A PostgreSQL failover under load: a primary and a synchronous streaming standby (PostgreSQL 18,
 * each in a network namespace of its own), the API, a worker and a reaper connected with a
 * multi-host URL ({@code targetServerType=primary}). While jobs are submitted, the primary's
 * processes are killed (SIGKILL) and the standby promoted. Checked: every job the API accepted
 * (201) is on the new primary and reaches one final state, no stale result, duplicates only where
 * an attempt was recorded LOST; reported: how submits were answered meanwhile and how long until
 * the API accepted and the worker claimed again. Written to target/postgres-failover-report.md.
 *
 * <p>Needs root and iproute2, as {@link NetworkFaultsE2E} (same opt-out, same {@link
 * NetworkHarness}).
 */
// The longest suites start first, so the short ones fill in beside them (deploy/pom.xml).
@Order(2)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PostgresFailoverE2E {
  /**
   * {@code -Dpunctual.faults.failover=async}: the same with asynchronous replication, to see what
   * it loses (nothing asserted about lost jobs then; the report counts them).
   */
  static final String ASYNC_PROPERTY = "punctual.faults.failover";

  private final Map<String, Object> report = new LinkedHashMap<>();
  private NetworkHarness harness;
  private JobLoad.Round round;

  /** How the primary fails. */
  enum Fault {
    /** Every process of the primary killed (SIGKILL). */
    KILL,
    /**
     * The primary cut off the network (from every other host, silently: no reset, no ICMP) and left
     * running, as a partitioned primary is; never healed (the old primary still believes it is the
     * primary: it must be fenced before its network comes back, see docs/network-faults.md).
     */
    PARTITION
  }

  @Test
  void acknowledgedJobsSurviveAPromotionOfTheSynchronousStandby() throws Exception {
    runWith(Fault.KILL);
  }

  /**
   * The primary partitioned, not killed: its connections hang (the clients' URL sets {@code
   * socketTimeout} so they give up), its commits wait for the standby it no longer reaches, and
   * none of them surfaces, on the new primary or on the old one.
   */
  @Test
  void acknowledgedJobsSurviveAPartitionedPrimaryAndItsUnreplicatedWritesNeverSurface()
      throws Exception {
    runWith(Fault.PARTITION);
  }

  private void runWith(Fault fault) throws Exception {
    harness = NetworkHarness.forTest("PostgresFailoverE2E", "the failover was");
    report.put("fault", fault);
    try {
      run(fault);
    } catch (Exception | Error e) {
      report.put("the harness stopped", e.toString());
      throw e;
    } finally {
      harness.close();
      writeReport(fault);
      NamespacedServers.keepLogs(
          harness.dir, Path.of("target", "postgres-failover-logs-" + fault.name().toLowerCase()));
    }
  }

  private void run(Fault fault) throws Exception {
    long started = System.nanoTime();
    boolean async = "async".equals(System.getProperty(ASYNC_PROPERTY));
    String mode = async ? "async" : "sync";
    report.put(
        "replication mode",
        async
            ? "asynchronous (-D"
                + ASYNC_PROPERTY
                + "=async): a commit is acknowledged before the standby has it"
            : "synchronous (synchronous_standby_names = '*', synchronous_commit = on)");
    Path dir = harness.dir;
    NetworkLab lab = harness.lab(List.of("pg1", "pg2", "redis", "api", "w1", "ctl", "sink"));
    Path data1 = dir.resolve("pg1-data");
    Path data2 = dir.resolve("pg2-data");
    Path bin = NamespacedServers.initPostgres(data1);
    NamespacedServers.trustLab(data1);
    NamespacedServers.copyAsStandby(data1, data2);
    List<PunctualProcess> primary =
        NamespacedServers.startPostgresDirect(
            lab,
            "pg1",
            bin,
            data1,
            dir,
            dir.resolve("pg1.sock"),
            Map.of("synchronous_standby_names", async ? "" : "*", "synchronous_commit", "on"));
    harness.addAll(primary);
    harness.addAll(
        NamespacedServers.startPostgresDirect(
            lab,
            "pg2",
            bin,
            data2,
            dir,
            dir.resolve("pg2.sock"),
            Map.of(
                "primary_conninfo",
                "host=" + lab.address("pg1") + " port=5432 user=postgres application_name=pg2")));
    harness.add(NamespacedServers.startRedis(lab, "redis", dir));
    String pg1 =
        "jdbc:postgresql://127.0.0.1:"
            + harness.local("tcp:127.0.0.1:0", "unix:" + dir.resolve("pg1.sock")).port()
            + "/punctual";
    String pg2 =
        "jdbc:postgresql://127.0.0.1:"
            + harness.local("tcp:127.0.0.1:0", "unix:" + dir.resolve("pg2.sock")).port()
            + "/punctual";
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () ->
                mode.equals(
                    text(
                        pg1,
                        "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'pg2'")));
    report.put("replication", "pg2 streams from pg1, sync_state = " + mode);

    String callback = harness.startSideEffects();
    String url =
        "jdbc:postgresql://"
            + lab.address("pg1")
            + ":5432,"
            + lab.address("pg2")
            + ":5432/punctual?targetServerType=primary"
            // A partitioned primary answers nothing: without a socket timeout a connection waits
            // on it as long as TCP retransmits (about 15 minutes).
            + (fault == Fault.PARTITION ? "&socketTimeout=10&connectTimeout=2" : "");
    report.put("JDBC URL of every process", url);
    harness.migrate(url);
    PunctualProcess apiProcess = harness.startApi(url);
    PunctualProcess worker =
        harness.role(url, "w1", "w1", Map.of("PUNCTUAL_ADMIN_PORT", "8081"), "worker");
    PunctualProcess reaper =
        harness.role(url, "ctl", "reaper", Map.of("PUNCTUAL_ADMIN_PORT", "8081"), "reaper");
    String api = harness.exposeApi();
    apiProcess.awaitOutput("(Punctual api is running)", NetworkHarness.START);
    reaper.awaitOutput("(Punctual reaper is running)", NetworkHarness.START);
    harness.awaitRegistered(worker, pg1);
    report.put("start-up seconds", Timing.seconds(System.nanoTime() - started));

    try (JobLoad load = new JobLoad(api, callback, 0, Duration.ofMillis(200))) {
      round = load.newRound();
      Set<UUID> accepted = round.accepted();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> accepted.size() >= 100);
      int acceptedBefore = accepted.size();
      if (fault == Fault.KILL) {
        // the primary fails: every process of it killed at once
        PunctualProcess primaryProcess = primary.get(0);
        primaryProcess.rememberDescendants();
        List<ProcessHandle> backends = primaryProcess.descendants();
        primaryProcess.kill();
        backends.forEach(ProcessHandle::destroyForcibly);
      } else {
        // the primary is cut off from every other host (the test still reaches it over its
        // socket, off the network)
        for (String host : List.of("pg2", "redis", "api", "w1", "ctl", "sink")) {
          lab.cut("pg1", host);
        }
      }
      long killed = System.nanoTime();
      // the operator (or the failover manager) promotes the standby
      assertThat(text(pg2, "SELECT pg_promote(true, 60)")).isEqualTo("t");
      double promotedAfter = Timing.seconds(System.nanoTime() - killed);
      report.put("accepted before the primary failed", acceptedBefore);
      report.put("standby promoted, seconds after the failure", promotedAfter);
      int acceptedAtKill = accepted.size();
      Double apiBack =
          Timing.awaitSeconds(() -> accepted.size() > acceptedAtKill + 6, Duration.ofSeconds(90));
      report.put(
          "API accepting again, seconds after the failure",
          apiBack == null ? null : Timing.seconds(System.nanoTime() - killed));
      String promotedAt =
          "to_timestamp("
              + count(pg2, "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")
              + " / 1000000.0)";
      Double workerBack =
          Timing.awaitSeconds(
              () ->
                  count(
                          pg2,
                          "SELECT count(*) FROM jobs j JOIN workers w ON w.id = j.worker_id"
                              + " WHERE w.pid = "
                              + worker.pid()
                              + " AND j.started_at > "
                              + promotedAt)
                      > 0,
              Duration.ofSeconds(90));
      report.put(
          "worker claiming on the new primary, seconds after the failure",
          workerBack == null ? null : Timing.seconds(System.nanoTime() - killed));
      Thread.sleep(2_000); // load on the new primary
    }
    Set<UUID> accepted = round.accepted();
    report.put("submits answered", round.tally());

    Double drained =
        Timing.awaitSeconds(
            () -> count(pg2, "SELECT count(*) FROM jobs WHERE finished_at IS NULL") == 0,
            Duration.ofSeconds(90));
    report.put("every job final on the new primary within (s)", drained);
    FaultChecker.Outcome outcome =
        new FaultChecker(pg2).check(accepted, harness.effects().effects());
    report.putAll(outcome.asMap());
    if (!async) {
      assertThat(outcome.missing()).as("acknowledged jobs missing on the new primary").isZero();
    }
    assertThat(outcome.notFinal()).as("jobs not final").isZero();
    assertThat(outcome.staleResults()).as("results written by a stale attempt").isZero();
    assertThat(outcome.duplicates())
        .as("duplicates without an attempt recorded LOST")
        .isEqualTo(outcome.duplicatesExplained());
    assertThat(round.unexpected()).as("answers other than 201, 503 problem+json, none").isEmpty();
    if (fault == Fault.PARTITION) {
      oldPrimaryWritesDoNotSurface(pg1, pg2, accepted);
    }
    report.put("total seconds", Timing.seconds(System.nanoTime() - started));
  }

  /**
   * The old primary, still running and cut off: its transactions committed after the cut wait for
   * the synchronous standby it cannot reach, and are not visible even on it; nothing it has that
   * the new primary lacks was acknowledged.
   */
  private void oldPrimaryWritesDoNotSurface(String pg1, String pg2, Set<UUID> accepted)
      throws SQLException {
    long waiting =
        count(
            pg1,
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
                + " AND application_name LIKE 'punctual-%'");
    report.put("old primary: sessions waiting for the synchronous standby", waiting);
    Set<UUID> onNew = ids(pg2, "SELECT id FROM jobs");
    Set<UUID> onOld = ids(pg1, "SELECT id FROM jobs");
    Set<UUID> onlyOnOld = new java.util.HashSet<>(onOld);
    onlyOnOld.removeAll(onNew);
    report.put("old primary: jobs visible there and not on the new primary", onlyOnOld.size());
    assertThat(onlyOnOld).as("jobs written on the old primary after the cut, visible").isEmpty();
    onlyOnOld.retainAll(accepted);
    assertThat(onlyOnOld).as("acknowledged jobs only the old primary has").isEmpty();
  }

  private static Set<UUID> ids(String jdbcUrl, String sql) throws SQLException {
    Set<UUID> ids = new java.util.HashSet<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
      }
    }
    return ids;
  }

  // --- helpers

  private static String text(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private static long count(String jdbcUrl, String sql) throws SQLException {
    return Long.parseLong(text(jdbcUrl, sql));
  }

  private void writeReport(Fault fault) {
    Path md =
        Path.of(
                "target",
                fault == Fault.KILL
                    ? "postgres-failover-report.md"
                    : "postgres-failover-partition-report.md")
            .toAbsolutePath();
    StringBuilder text =
        new StringBuilder("# PostgreSQL failover report\n\nRun ")
            .append(Instant.now())
            .append(", ")
            .append(Runtime.getRuntime().availableProcessors())
            .append(" cores.\n\n");
    report.forEach((k, v) -> text.append("- ").append(k).append(": ").append(v).append('\n'));
    try {
      Files.createDirectories(md.getParent());
      Files.writeString(md, text);
      System.out.println(text + "(written to " + md + ")");
    } catch (IOException e) {
      System.out.println(text + "(could not write the report: " + e + ")");
    }
  }
}
