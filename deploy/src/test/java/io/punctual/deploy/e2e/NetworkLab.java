package io.punctual.deploy.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A star of network namespaces on this machine: one namespace per host (PostgreSQL, Redis, the API,
 * each worker...), each joined by a veth pair to a hub namespace that routes between them. Host
 * {@code i} is {@code 10.231.i.2/24} on its {@code eth0}, the hub {@code 10.231.i.1} on its {@code
 * v-<host>}. Every name starts with {@code pnf-<random>-}, the veth pairs are created directly
 * inside the namespaces (they never appear in the host's namespace), and nothing of the host's own
 * network (interfaces, addresses, routes, firewall) is touched; {@link #close()} (also run by a
 * shutdown hook) deletes the namespaces, which takes their veths with them.
 *
 * <p>A link between two hosts is cut by two policy rules in the hub ({@code ip rule add from A to B
 * blackhole} and back): the hub silently drops what it would forward between them, as a partitioned
 * network does (no reset, no ICMP); the hosts' other links keep working. {@link #heal} deletes the
 * rules.
 */
final class NetworkLab implements AutoCloseable {
  private static final String NET = "10.231.";

  private final String prefix = "pnf-" + UUID.randomUUID().toString().substring(0, 6);
  private final Map<String, Integer> hosts = new LinkedHashMap<>();
  private final Map<String, List<Integer>> rules = new HashMap<>();
  private final Thread cleanUp = new Thread(this::deleteNamespaces, "network-lab-clean-up");
  private int nextRule = 1000;
  private boolean closed;

  /**
   * Why namespaces cannot be made here (not root, no {@code ip}), or null when they can: tried for
   * real, with a namespace made and deleted.
   */
  static String unavailableReason() {
    String uid = output(List.of("id", "-u"));
    if (uid == null || !uid.trim().equals("0")) {
      return "not root (id -u: " + (uid == null ? "failed" : uid.trim()) + ")";
    }
    String probe = "pnf-probe-" + UUID.randomUUID().toString().substring(0, 6);
    if (output(List.of("ip", "netns", "add", probe)) == null) {
      return "`ip netns add` failed (is iproute2 installed? `which ip`)";
    }
    output(List.of("ip", "netns", "del", probe));
    return null;
  }

  /** Creates the hub and one namespace per host, linked and routed. */
  static NetworkLab create(List<String> hostNames) {
    NetworkLab lab = new NetworkLab();
    Runtime.getRuntime().addShutdownHook(lab.cleanUp);
    try {
      lab.run("ip", "netns", "add", lab.ns("hub"));
      lab.inNamespace("hub", "ip", "link", "set", "lo", "up");
      lab.inNamespace("hub", "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward");
      int i = 0;
      for (String host : hostNames) {
        lab.addHost(host, ++i);
      }
      return lab;
    } catch (RuntimeException e) {
      lab.close();
      throw e;
    }
  }

  private void addHost(String host, int i) {
    String ns = ns(host);
    run("ip", "netns", "add", ns);
    String hubSide = "v-" + host;
    run(
        "ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", hubSide, "netns",
        ns("hub"));
    run("ip", "-n", ns, "addr", "add", NET + i + ".2/24", "dev", "eth0");
    run("ip", "-n", ns, "link", "set", "lo", "up");
    run("ip", "-n", ns, "link", "set", "eth0", "up");
    run("ip", "-n", ns, "route", "add", "default", "via", NET + i + ".1");
    run("ip", "-n", ns("hub"), "addr", "add", NET + i + ".1/24", "dev", hubSide);
    run("ip", "-n", ns("hub"), "link", "set", hubSide, "up");
    hosts.put(host, i);
  }

  /** The namespace of a host (or of the hub). */
  String ns(String host) {
    return prefix + "-" + host;
  }

  String prefix() {
    return prefix;
  }

  /** The host's address, which the other hosts reach it at. */
  String address(String host) {
    Integer i = hosts.get(host);
    if (i == null) {
      throw new IllegalArgumentException("no host " + host);
    }
    return NET + i + ".2";
  }

  /** {@code command} prefixed to run inside the host's namespace. */
  List<String> exec(String host, List<String> command) {
    List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", ns(host)));
    all.addAll(command);
    return all;
  }

  /** Runs a command inside a host's namespace to its end; fails on a non-zero exit. */
  String inNamespace(String host, String... command) {
    return run(exec(host, List.of(command)).toArray(String[]::new));
  }

  /** Silently drops everything the hub would forward between {@code a} and {@code b}. */
  synchronized void cut(String a, String b) {
    String key = key(a, b);
    if (rules.containsKey(key)) {
      return;
    }
    List<Integer> prefs = new ArrayList<>();
    for (String[] pair : new String[][] {{a, b}, {b, a}}) {
      int pref = nextRule++;
      run(
          "ip",
          "-n",
          ns("hub"),
          "rule",
          "add",
          "from",
          address(pair[0]),
          "to",
          address(pair[1]),
          "blackhole",
          "pref",
          "" + pref);
      prefs.add(pref);
    }
    rules.put(key, prefs);
  }

  /** Undoes {@link #cut}. */
  synchronized void heal(String a, String b) {
    List<Integer> prefs = rules.remove(key(a, b));
    if (prefs == null) {
      return;
    }
    for (int pref : prefs) {
      run("ip", "-n", ns("hub"), "rule", "del", "pref", "" + pref);
    }
  }

  /**
   * Adds {@code tc qdisc ... netem <spec>} on the host's link (its outgoing side, and the hub's
   * side towards it); false when the kernel has no netem (CONFIG_NET_SCH_NETEM unset).
   */
  boolean netem(String host, String spec) {
    List<String> base = new ArrayList<>(List.of("tc", "qdisc", "replace", "dev"));
    List<String> mine = new ArrayList<>(base);
    mine.addAll(List.of("eth0", "root", "netem"));
    mine.addAll(List.of(spec.split(" ")));
    if (output(exec(host, mine)) == null) {
      return false;
    }
    List<String> hub = new ArrayList<>(base);
    hub.addAll(List.of("v-" + host, "root", "netem"));
    hub.addAll(List.of(spec.split(" ")));
    return output(exec("hub", hub)) != null;
  }

  /** Removes {@link #netem}. */
  void clearNetem(String host) {
    output(exec(host, List.of("tc", "qdisc", "del", "dev", "eth0", "root")));
    output(exec("hub", List.of("tc", "qdisc", "del", "dev", "v-" + host, "root")));
  }

  private static String key(String a, String b) {
    return a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    deleteNamespaces();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanUp);
    } catch (IllegalStateException ignored) {
      // the JVM is shutting down: the hook runs anyway
    }
  }

  private void deleteNamespaces() {
    List<String> names = new ArrayList<>();
    for (String host : hosts.keySet()) {
      names.add(ns(host));
    }
    names.add(ns("hub"));
    for (String name : names) {
      output(List.of("ip", "netns", "del", name));
    }
  }

  private static String run(String... command) {
    String out = output(List.of(command));
    if (out == null) {
      throw new IllegalStateException("failed: " + String.join(" ", command) + "\n" + lastError);
    }
    return out;
  }

  private static volatile String lastError = "";

  /** The command's output, or null if it failed or could not start. */
  private static String output(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        lastError = "timed out";
        return null;
      }
      if (p.exitValue() != 0) {
        lastError = out;
        return null;
      }
      return out;
    } catch (IOException e) {
      lastError = e.toString();
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted", e));
    }
  }
}
