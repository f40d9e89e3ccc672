package io.punctual.deploy.architecture;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

/**
 * The package graph as {@code jdeps} reads it from class files, and its cycles. jdeps reads every
 * class named in a class file's constant pool, so it sees what ArchUnit, which reads the code's
 * accesses, does not: a constant the compiler inlined leaves only its class behind (an {@code
 * AuthSettings} reading {@code KeySecrets.MIN_LENGTH} depends on {@code KeySecrets} all the same).
 */
final class PackageCycles {
  private static final Pattern EDGE =
      Pattern.compile(
          "^\\s+(io\\.punctual[\\w.]*)\\s+->\\s+(io\\.punctual[\\w.]*)\\s", Pattern.MULTILINE);

  private PackageCycles() {}

  /** Package → the packages it uses, among {@code io.punctual}'s, read from {@code targets}. */
  static Map<String, Set<String>> graph(List<Path> targets, String classPath) {
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("no jdeps"));
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "-verbose:package",
            "-filter:none",
            "--multi-release",
            "21",
            "-e",
            "io\\.punctual\\..*",
            "-cp",
            classPath));
    targets.forEach(t -> args.add(t.toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = jdeps.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    if (status != 0) {
      throw new IllegalStateException("jdeps failed (" + status + "): " + err + out);
    }
    Map<String, Set<String>> graph = new TreeMap<>();
    Matcher m = EDGE.matcher(out.toString());
    while (m.find()) {
      graph.computeIfAbsent(m.group(1), k -> new TreeSet<>());
      graph.computeIfAbsent(m.group(2), k -> new TreeSet<>());
      if (!m.group(1).equals(m.group(2))) {
        graph.get(m.group(1)).add(m.group(2));
      }
    }
    return graph;
  }

  /** The strongly connected groups of more than one package (Tarjan's algorithm). */
  static List<Set<String>> cycles(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> groups = new ArrayList<>();
    int[] counter = {0};
    for (String node : graph.keySet()) {
      if (!index.containsKey(node)) {
        connect(node, graph, index, low, stack, onStack, groups, counter);
      }
    }
    return groups;
  }

  private static void connect(
      String node,
      Map<String, Set<String>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> groups,
      int[] counter) {
    index.put(node, counter[0]);
    low.put(node, counter[0]);
    counter[0]++;
    stack.push(node);
    onStack.add(node);
    for (String next : graph.getOrDefault(node, Set.of())) {
      if (!index.containsKey(next)) {
        connect(next, graph, index, low, stack, onStack, groups, counter);
        low.put(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.contains(next)) {
        low.put(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node).equals(index.get(node))) {
      Set<String> group = new TreeSet<>();
      String member;
      do {
        member = stack.pop();
        onStack.remove(member);
        group.add(member);
      } while (!member.equals(node));
      if (group.size() > 1) {
        groups.add(group);
      }
    }
  }
}
