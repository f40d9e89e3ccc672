package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * What {@link NetworkFaultsE2E} and {@link PostgresFailoverE2E} set up alike: the opt-out and the
 * check for root and iproute2, a temporary directory, the {@link NetworkLab}, the fast failure
 * detection of the processes, the side-effect server reached from the lab as host {@code sink}, the
 * API reached from this host, and the processes and relays, stopped in reverse order by {@link
 * #close()}.
 */
final class NetworkHarness implements AutoCloseable {
  static final String OPT_OUT = "punctual.faults.netns";
  static final Duration START = Duration.ofMinutes(4);

  /** Fast failure detection, as in FaultInjectionE2E (knobs: docs/configuration.md). */
  private static final String CONFIG =
      """
      queue:
        promoterInterval: PT0.2S
      postgres:
        connectionTimeout: PT2S
      worker:
        heartbeatInterval: PT0.5S
        leaseTtl: PT8S
        shutdownGrace: PT5S
        maxIdleWait: PT1S
        concurrency: 16
      reaper:
        interval: PT0.5S
        rescueAfter: PT9S
        reconcileAfter: PT2S
      """;

  final Path dir;
  private final Path config;
  private final List<PunctualProcess> processes = new ArrayList<>();
  private final List<Relay> localRelays = new ArrayList<>();
  private NetworkLab lab;
  private SideEffectServer effects;

  private NetworkHarness(Path dir) throws IOException {
    this.dir = dir;
    this.config = dir.resolve("network-faults.yml");
    Files.writeString(config, CONFIG);
  }

  /**
   * A harness for {@code test}; aborts it with {@code -Dpunctual.faults.netns=skip} (saying that
   * {@code what} was NOT tested), fails it without root and iproute2.
   */
  static NetworkHarness forTest(String test, String what) throws IOException {
    if ("skip".equals(System.getProperty(OPT_OUT))) {
      String message =
          test + " skipped on request (-D" + OPT_OUT + "=skip): " + what + " NOT tested";
      System.out.println(message);
      Assumptions.abort(message);
    }
    assertThat(NetworkLab.unavailableReason())
        .as(
            test
                + " needs root and iproute2 to make network namespaces; run it as root, or opt out"
                + " locally with -D"
                + OPT_OUT
                + "=skip (docs/network-faults.md)")
        .isNull();
    return new NetworkHarness(Files.createTempDirectory("pnf"));
  }

  /** The lab of these hosts, each a network namespace of its own. */
  NetworkLab lab(List<String> hosts) {
    lab = NetworkLab.create(hosts);
    return lab;
  }

  void add(PunctualProcess process) {
    processes.add(process);
  }

  void addAll(Collection<PunctualProcess> more) {
    processes.addAll(more);
  }

  /** A relay on this host (outside the lab). */
  Relay local(String listen, String connect) {
    Relay relay = Relay.start(listen, connect, null);
    localRelays.add(relay);
    return relay;
  }

  /**
   * Starts the side-effect server on this host, reached from the lab at {@code sink}:8090 through a
   * relay in that namespace; the callback URL the jobs are given.
   */
  String startSideEffects() {
    effects = SideEffectServer.start();
    local(
        "unix:" + dir.resolve("sink.sock"), "tcp:127.0.0.1:" + URI.create(effects.url()).getPort());
    add(
        NamespacedServers.relay(
            lab,
            "sink",
            dir.resolve("relay-sink.log"),
            "tcp:" + lab.address("sink") + ":8090=unix:" + dir.resolve("sink.sock")));
    return "http://" + lab.address("sink") + ":8090/effect";
  }

  SideEffectServer effects() {
    return effects;
  }

  /** Runs {@code migrate} in host {@code ctl}, to its successful end. */
  void migrate(String jdbcUrl) {
    PunctualProcess migrate = role(jdbcUrl, "ctl", "migrate", Map.of(), "migrate");
    assertThat(migrate.awaitExit(START)).as(migrate.tail()).isZero();
  }

  /** Starts the API in host {@code api} (port 8080, admin 8081). */
  PunctualProcess startApi(String jdbcUrl) {
    return role(
        jdbcUrl,
        "api",
        "api",
        Map.of("PUNCTUAL_HTTP_PORT", "8080", "PUNCTUAL_ADMIN_PORT", "8081"),
        "api");
  }

  /** The API's base URL on this host, through relays (once {@link #startApi} was called). */
  String exposeApi() {
    add(
        NamespacedServers.relay(
            lab,
            "api",
            dir.resolve("relay-api.log"),
            "unix:" + dir.resolve("api.sock") + "=tcp:127.0.0.1:8080"));
    return "http://127.0.0.1:" + local("tcp:127.0.0.1:0", "unix:" + dir.resolve("api.sock")).port();
  }

  /** Starts a role of Punctual in {@code host}'s namespace with the fast configuration. */
  PunctualProcess role(
      String jdbcUrl, String host, String name, Map<String, String> extra, String role) {
    PunctualProcess p =
        NamespacedServers.startRole(lab, dir, jdbcUrl, host, name, extra, role, config);
    add(p);
    return p;
  }

  /** Waits until {@code worker} is in the registry of the database at {@code jdbcUrl}. */
  void awaitRegistered(PunctualProcess worker, String jdbcUrl) {
    FaultChecker db = new FaultChecker(jdbcUrl);
    await()
        .atMost(START)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .failFast("worker exited:\n" + worker.tail(), () -> !worker.isAlive())
        .until(() -> db.count("SELECT count(*) FROM workers WHERE pid = " + worker.pid()) == 1);
  }

  /** Stops every process (the last started first), the relays, the side effects and the lab. */
  @Override
  public void close() {
    List<PunctualProcess> reversed = new ArrayList<>(processes);
    Collections.reverse(reversed);
    for (PunctualProcess p : reversed) {
      try {
        p.close();
      } catch (RuntimeException e) {
        System.out.println("could not stop a process: " + e);
      }
    }
    localRelays.forEach(Relay::close);
    if (effects != null) {
      effects.close();
    }
    if (lab != null) {
      lab.close();
    }
  }
}
