package io.punctual.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where the finish statement's time goes inside PostgreSQL, when asked ({@code
 * -Dbench.pgPlans=true}): the benchmark's PostgreSQL then loads auto_explain and logs the plan of
 * one statement in ten, with each node's actual time, into a directory of its own. After each round
 * the finish plans logged since the last print (those that insert into job_executions) are read and
 * the median per row of their parts printed: the whole statement, the UPDATE of jobs, the lookup it
 * starts from, the INSERT of the executions and the lookup it starts from. Timing each node costs
 * the sampled statements a little; the figures are for comparing parts, not totals.
 */
final class FinishPlans {
  static final boolean ON = Boolean.getBoolean("bench.pgPlans");
  private static final Pattern ACTUAL =
      Pattern.compile("\\(actual time=([\\d.]+)\\.\\.([\\d.]+) rows=([\\d.]+) loops=(\\d+)\\)");
  private static final Pattern DURATION = Pattern.compile("duration: ([\\d.]+) ms\\s+plan:");

  private final Path directory;
  private final Map<Path, Long> read = new HashMap<>();

  private FinishPlans(Path directory) {
    this.directory = directory;
  }

  /** A fresh directory for the server's log. */
  static FinishPlans create() throws IOException {
    Path dir = Files.createTempDirectory("punctual-pg-plans");
    dir.toFile().setWritable(true, false);
    return new FinishPlans(dir);
  }

  /** The server settings that log sampled plans into this directory. */
  Map<String, String> settings() {
    return Map.of(
        "session_preload_libraries", "auto_explain",
        "auto_explain.log_min_duration", "0",
        "auto_explain.log_analyze", "on",
        "auto_explain.log_nested_statements", "on",
        "auto_explain.sample_rate", "0.1",
        "logging_collector", "on",
        "log_directory", directory.toString());
  }

  /** Prints the medians of the finish plans logged since the last print. */
  void print() throws IOException {
    List<String> blocks = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path f : files.sorted().toList()) {
        String text = Files.readString(f);
        long from = read.getOrDefault(f, 0L);
        read.put(f, (long) text.length());
        blocks.addAll(
            List.of(text.substring((int) Math.min(from, text.length())).split("\n(?=\\S)")));
      }
    }
    List<double[]> parts = new ArrayList<>();
    for (String block : blocks) {
      double[] p = parts(block); // null unless the block is a finish's plan
      if (p != null) {
        parts.add(p);
      }
    }
    if (parts.isEmpty()) {
      System.out.println("  finish plans: none sampled this round (logs in " + directory + ")");
      return;
    }
    String[] names = {
      "statement", "update of jobs", "its lookup", "insert of executions", "its lookup"
    };
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < names.length; i++) {
      final int k = i;
      double median = InProcessDrains.median(parts.stream().map(p -> p[k]).toList());
      line.append(String.format(Locale.ROOT, "%s%s %.1f", i == 0 ? "" : ", ", names[i], median));
    }
    System.out.printf(
        Locale.ROOT,
        "  finish plans (%d sampled, us per row, medians; logs in %s): %s%n",
        parts.size(),
        directory,
        line);
  }

  /**
   * The statement's, the UPDATE's, its first child's, the INSERT's and its first child's times per
   * row of the UPDATE, or null when the block is not a whole plan.
   */
  static double[] parts(String block) {
    Matcher d = DURATION.matcher(block);
    if (!d.find()) {
      return null;
    }
    String[] lines = block.split("\n");
    double[] update = node(lines, "Update on jobs ");
    double[] insert = node(lines, "Insert on job_executions");
    if (update == null || insert == null || update[2] <= 0) {
      return null;
    }
    double rows = update[2];
    double toMicrosPerRow = 1000 / rows;
    return new double[] {
      Double.parseDouble(d.group(1)) * toMicrosPerRow,
      update[0] * toMicrosPerRow,
      update[1] * toMicrosPerRow,
      insert[0] * toMicrosPerRow,
      insert[1] * toMicrosPerRow
    };
  }

  /** The node's total time (ms), its first child's (ms) and its rows; null if absent. */
  private static double[] node(String[] lines, String label) {
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].contains(label)) {
        continue;
      }
      Matcher own = ACTUAL.matcher(lines[i]);
      if (!own.find()) {
        return null;
      }
      int indent = indent(lines[i]);
      for (int j = i + 1; j < lines.length; j++) {
        if (!lines[j].contains("->")) {
          continue;
        }
        if (indent(lines[j]) <= indent) {
          break;
        }
        Matcher child = ACTUAL.matcher(lines[j]);
        if (child.find()) {
          return new double[] {
            Double.parseDouble(own.group(2)),
            Double.parseDouble(child.group(2)),
            Double.parseDouble(own.group(3))
          };
        }
      }
      return new double[] {Double.parseDouble(own.group(2)), 0, Double.parseDouble(own.group(3))};
    }
    return null;
  }

  private static int indent(String line) {
    String s = line.replace("\t", "        ");
    int arrow = s.indexOf("->");
    if (arrow >= 0) {
      return arrow;
    }
    int n = 0;
    while (n < s.length() && s.charAt(n) == ' ') {
      n++;
    }
    return n;
  }
}
