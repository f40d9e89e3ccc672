package io.punctual.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real Redis Cluster of 3 masters and 3 replicas for tests and benchmarks: six {@code
 * redis-server} processes (Debian's, 7.x, at {@code /usr/bin}) in cluster mode on free loopback
 * ports, each in its own directory under a temporary one, joined by {@code redis-cli --cluster
 * create --cluster-replicas 1}. Nothing else on the machine is touched (never the server on 6379).
 * {@link #close} stops the processes and deletes the directory.
 */
public final class LocalRedisCluster implements AutoCloseable {
  private static final String SERVER = "/usr/bin/redis-server";
  private static final String CLI = "/usr/bin/redis-cli";

  private final Path dir;
  private final List<Integer> ports = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();

  private LocalRedisCluster(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts the six nodes and creates the cluster; waits until every node says the cluster is ok.
   */
  public static LocalRedisCluster start() {
    if (!Files.isExecutable(Path.of(SERVER)) || !Files.isExecutable(Path.of(CLI))) {
      throw new IllegalStateException(
          "the Redis Cluster tests need Debian's redis-server and redis-cli (7.x) at /usr/bin"
              + " (apt-get install redis-server)");
    }
    LocalRedisCluster cluster;
    try {
      cluster = new LocalRedisCluster(Files.createTempDirectory("punctual-cluster-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      for (int i = 0; i < 6; i++) {
        cluster.startNode(cluster.freePort());
      }
      List<String> create = new ArrayList<>(List.of(CLI, "--cluster", "create"));
      for (int port : cluster.ports) {
        create.add("127.0.0.1:" + port);
      }
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      cluster.run(create);
      for (int port : cluster.ports) {
        waitFor(
            () -> cluster.cli(port, "cluster", "info").contains("cluster_state:ok"),
            Duration.ofSeconds(30),
            "node " + port + " to see the cluster ok");
      }
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void startNode(int port) {
    Path nodeDir = dir.resolve(Integer.toString(port));
    try {
      Files.createDirectories(nodeDir);
      ProcessBuilder pb =
          new ProcessBuilder(
              SERVER,
              "--port",
              Integer.toString(port),
              "--bind",
              "127.0.0.1",
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              "nodes.conf",
              "--cluster-node-timeout",
              "2000",
              "--save",
              "",
              "--appendonly",
              "no",
              "--dir",
              nodeDir.toString(),
              "--logfile",
              nodeDir.resolve("redis.log").toString());
      pb.redirectErrorStream(true).redirectOutput(nodeDir.resolve("stdout.log").toFile());
      processes.add(pb.start());
      ports.add(port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    waitFor(() -> ping(port), Duration.ofSeconds(10), "redis-server on " + port);
  }

  /** The seed URIs of all six nodes (what {@code redis.cluster} takes). */
  public List<String> seeds() {
    List<String> seeds = new ArrayList<>();
    for (int port : ports) {
      seeds.add("redis://127.0.0.1:" + port);
    }
    return seeds;
  }

  public List<Integer> ports() {
    return List.copyOf(ports);
  }

  /** The ports of the live nodes that are masters now, each asked itself ({@code ROLE}). */
  public List<Integer> masterPorts() {
    List<Integer> masters = new ArrayList<>();
    for (int i = 0; i < ports.size(); i++) {
      if (processes.get(i).isAlive() && cli(ports.get(i), "role").startsWith("master")) {
        masters.add(ports.get(i));
      }
    }
    return masters;
  }

  /** The port of the master serving {@code slot}, as that master itself says. */
  public int masterOf(int slot) {
    for (int port : masterPorts()) {
      for (String line : cli(port, "cluster", "nodes").lines().toList()) {
        String[] f = line.split(" ", -1);
        if (f.length < 3 || !f[2].contains("myself")) {
          continue;
        }
        for (int i = 8; i < f.length; i++) {
          String range = f[i];
          if (range.isBlank() || range.startsWith("[")) {
            continue;
          }
          String[] ends = range.split("-", -1);
          int from = Integer.parseInt(ends[0].trim());
          int to = ends.length > 1 ? Integer.parseInt(ends[1].trim()) : from;
          if (slot >= from && slot <= to) {
            return port;
          }
        }
      }
    }
    throw new IllegalStateException("no master serves slot " + slot);
  }

  /** The node id of the node on {@code port}. */
  public String nodeId(int port) {
    return cli(port, "cluster", "myid").trim();
  }

  /**
   * Makes a replica of the master on {@code masterPort} take over ({@code CLUSTER FAILOVER} on the
   * replica, a coordinated failover: no write is lost) and waits until every live node agrees.
   */
  public int failover(int masterPort) {
    int replica = inSyncReplicaOf(masterPort);
    cli(replica, "cluster", "failover");
    int promoted = replica;
    waitFor(
        () -> cli(promoted, "role").startsWith("master"),
        Duration.ofSeconds(30),
        "replica " + promoted + " to become master");
    waitFor(
        () -> cli(masterPort, "role").startsWith("slave"),
        Duration.ofSeconds(30),
        "the old master " + masterPort + " to become a replica");
    waitForClusterOk();
    return promoted;
  }

  /**
   * Kills the master on {@code port} (SIGKILL: what it had not yet sent to its replica is lost) and
   * waits until one of its replicas has been elected master and every live node sees the cluster ok
   * again.
   *
   * <p>Waiting for the election, not only for {@code cluster_state:ok}: right after the kill the
   * other nodes still report ok for the node timeout and more (3.2 s here with a 2 s timeout, then
   * 0.7 s of {@code fail} until the election), so a wait on the state alone returned before the
   * failover had begun.
   */
  public void killMaster(int port) {
    List<Integer> replicas = replicasOf(port);
    // a replica that has not finished its first sync refuses to be elected (its data counts as too
    // old), so the kill waits for one whose link to the master is up
    inSyncReplicaOf(port);
    int index = ports.indexOf(port);
    processes.get(index).destroyForcibly();
    try {
      processes.get(index).waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    waitFor(
        () -> replicas.stream().anyMatch(r -> cli(r, "role").startsWith("master")),
        Duration.ofSeconds(60),
        "a replica of " + port + " " + replicas + " to be elected master");
    waitForClusterOk();
  }

  /**
   * The ports of the replicas of the master on {@code masterPort}, waiting up to 30 s for the nodes
   * to know one (a cluster just made, or just failed over, may not list it yet); fails when none
   * shows.
   */
  private List<Integer> replicasOf(int masterPort) {
    String masterId = nodeId(masterPort);
    List<Integer> replicas = new ArrayList<>();
    waitFor(
        () -> {
          replicas.clear();
          for (String line : liveNodesLines()) {
            String[] f = line.split(" ", -1);
            if (f[2].contains("slave") && f[3].equals(masterId)) {
              replicas.add(portOf(f[1]));
            }
          }
          return !replicas.isEmpty();
        },
        Duration.ofSeconds(30),
        "master " + masterPort + " to have a replica");
    return List.copyOf(replicas);
  }

  /** A replica of the master on {@code masterPort} whose link to it is up (waits up to 30 s). */
  private int inSyncReplicaOf(int masterPort) {
    List<Integer> replicas = replicasOf(masterPort);
    int[] found = {-1};
    waitFor(
        () -> {
          for (int r : replicas) {
            if (cli(r, "info", "replication").contains("master_link_status:up")) {
              found[0] = r;
              return true;
            }
          }
          return false;
        },
        Duration.ofSeconds(30),
        "a replica of " + masterPort + " " + replicas + " to be in sync");
    return found[0];
  }

  /**
   * Moves one slot, with its keys, from the master that serves it to the master on {@code toPort},
   * as {@code redis-cli --cluster reshard} does: SETSLOT IMPORTING/MIGRATING, MIGRATE of the keys
   * in batches (clients meanwhile get ASK redirections), then SETSLOT NODE on both and the others.
   */
  public void migrateSlot(int slot, int toPort) {
    int fromPort = masterOf(slot);
    if (fromPort == toPort) {
      return;
    }
    String fromId = nodeId(fromPort);
    String toId = nodeId(toPort);
    String s = Integer.toString(slot);
    cli(toPort, "cluster", "setslot", s, "importing", fromId);
    cli(fromPort, "cluster", "setslot", s, "migrating", toId);
    while (true) {
      String keys = cli(fromPort, "cluster", "getkeysinslot", s, "100");
      List<String> batch = keys.lines().filter(k -> !k.isBlank()).toList();
      if (batch.isEmpty()) {
        break;
      }
      List<String> migrate =
          new ArrayList<>(
              List.of("migrate", "127.0.0.1", Integer.toString(toPort), "", "0", "5000", "keys"));
      migrate.addAll(batch);
      cli(fromPort, migrate.toArray(String[]::new));
    }
    cli(toPort, "cluster", "setslot", s, "node", toId);
    cli(fromPort, "cluster", "setslot", s, "node", toId);
    for (int p : masterPorts()) {
      cli(p, "cluster", "setslot", s, "node", toId);
    }
    waitFor(() -> masterOf(slot) == toPort, Duration.ofSeconds(30), "slot " + slot + " to move");
  }

  /** Waits until every live node reports cluster_state:ok. */
  public void waitForClusterOk() {
    for (int i = 0; i < ports.size(); i++) {
      if (!processes.get(i).isAlive()) {
        continue;
      }
      int port = ports.get(i);
      waitFor(
          () -> cli(port, "cluster", "info").contains("cluster_state:ok"),
          Duration.ofSeconds(30),
          "node " + port + " to see the cluster ok");
    }
  }

  /** {@code redis-cli -p port args...}; its output (failing loudly on a non-zero exit). */
  public String cli(int port, String... args) {
    List<String> command = new ArrayList<>(List.of(CLI, "-h", "127.0.0.1", "-p", "" + port));
    command.addAll(List.of(args));
    return run(command);
  }

  private List<String> liveNodesLines() {
    for (int i = 0; i < ports.size(); i++) {
      if (processes.get(i).isAlive()) {
        return cli(ports.get(i), "cluster", "nodes").lines().filter(l -> !l.isBlank()).toList();
      }
    }
    throw new IllegalStateException("no node is alive");
  }

  private static int portOf(String address) {
    // 127.0.0.1:7000@17000
    String hostPort = address.split("@", -1)[0];
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  private String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("failed: " + String.join(" ", command) + "\n" + out);
      }
      if (out.startsWith("ERR") || out.contains("\nERR ")) {
        throw new IllegalStateException(String.join(" ", command) + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private boolean ping(int port) {
    try {
      return cli(port, "ping").trim().equals("PONG");
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static void waitFor(BooleanSupplier condition, Duration limit, String what) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        // not yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * A loopback port that is free, and whose cluster bus port (port + 10000) is free too: both below
   * 65536, so picked from 20000-49999 rather than from the ephemeral range.
   */
  private int freePort() {
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port = 20_000 + random.nextInt(30_000);
      if (!ports.contains(port) && bindable(port) && bindable(port + 10_000)) {
        return port;
      }
    }
    throw new IllegalStateException("no free pair of loopback ports (port, port + 10000)");
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket =
        new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  /** Stops every node and deletes their directory. */
  @Override
  public void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      System.err.println("could not delete " + dir + ": " + e);
    }
  }
}
