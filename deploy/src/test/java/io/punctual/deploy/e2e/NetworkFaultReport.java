package io.punctual.deploy.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report of a {@link NetworkFaultsE2E} run: printed, and written to
 * target/network-faults-report.md (for people) and .json (for tools): the set-up, then per scenario
 * its fault, what was submitted and how it was answered, what the checker found, how long the
 * recovery took, and the broken promises.
 */
final class NetworkFaultReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private NetworkFaultReport() {}

  static void write(
      Map<String, Object> setup, List<Map<String, Object>> scenarios, List<String> failures) {
    Path md = Path.of("target", "network-faults-report.md").toAbsolutePath();
    Path json = Path.of("target", "network-faults-report.json").toAbsolutePath();
    StringBuilder text = new StringBuilder("# Network faults report\n\n");
    text.append("Run ")
        .append(Instant.now())
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores.\n\n");
    setup.forEach((k, v) -> text.append("- ").append(k).append(": ").append(v).append('\n'));
    for (Map<String, Object> s : scenarios) {
      text.append("\n## ").append(s.get("scenario")).append("\n\n");
      s.forEach(
          (k, v) -> {
            if (!k.equals("scenario")) {
              text.append("- ").append(k).append(": ").append(v).append('\n');
            }
          });
    }
    text.append("\n## Verdict\n\n")
        .append(failures.isEmpty() ? "every promise kept" : String.join("\n", failures))
        .append('\n');
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("setup", setup);
    all.put("scenarios", scenarios);
    all.put("failures", failures);
    try {
      Files.createDirectories(md.getParent());
      Files.writeString(md, text);
      Files.writeString(json, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(all));
      System.out.println(text + "(written to " + md + " and " + json + ")");
    } catch (IOException e) {
      System.out.println(text + "(could not write the report: " + e + ")");
    }
  }
}
