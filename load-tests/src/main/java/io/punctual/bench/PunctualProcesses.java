package io.punctual.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Punctual roles run as their own processes from the distribution jar ({@code java -jar
 * deploy/target/punctual.jar worker|api}), the way they run in production, against the benchmark's
 * PostgreSQL and Redis. Each gets a free admin port, which serves its health and its metrics; its
 * output goes to {@code target/bench-<role>-<n>.log}. JVM flags for them: {@code
 * -Dbench.processOpts="..."} (e.g. a flight recording).
 */
final class PunctualProcesses implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** One running role. */
  record Role(String name, Process process, int adminPort, int httpPort) {
    long pid() {
      return process.pid();
    }
  }

  private final Path jar = Path.of(System.getProperty("bench.jar", "deploy/target/punctual.jar"));
  private final Map<String, String> env;
  private final List<Role> roles = new ArrayList<>();
  private final Map<String, double[]> lastRss = new LinkedHashMap<>();

  /**
   * @param databaseUrl JDBC URL of the benchmark's database
   * @param redisUrl the benchmark's Redis (key prefix "punctual", the default)
   */
  PunctualProcesses(String databaseUrl, String redisUrl) {
    this(databaseUrl, redisUrl, true);
  }

  /**
   * @param auth whether the API asks for keys ({@link BenchSupport#API_KEY} is its bootstrap key);
   *     false runs it with {@code PUNCTUAL_AUTH_ENABLED=false}
   */
  PunctualProcesses(String databaseUrl, String redisUrl, boolean auth) {
    this.env =
        Map.of(
            "PUNCTUAL_DATABASE_URL",
            databaseUrl,
            "PUNCTUAL_REDIS_URL",
            redisUrl,
            "PUNCTUAL_BOOTSTRAP_KEY",
            BenchSupport.API_KEY,
            "PUNCTUAL_SECRETS_KEY",
            BenchSupport.SECRETS_KEY,
            "PUNCTUAL_AUTH_ENABLED",
            Boolean.toString(auth));
  }

  /** Runs {@code punctual migrate} and waits for it. */
  void migrate() throws Exception {
    Process p = start("migrate", 0, 0, 0);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("punctual migrate failed, see target/bench-migrate-0.log");
    }
  }

  /** Starts {@code count} worker processes and waits until each reports healthy. */
  List<Role> startWorkers(int count) throws Exception {
    List<Role> started = new ArrayList<>();
    int first = workers().size() + 1;
    for (int i = first; i < first + count; i++) {
      int admin = FreePorts.pick();
      Role role = new Role("worker-" + i, start("worker", i, admin, 0), admin, 0);
      roles.add(role);
      started.add(role);
    }
    for (Role r : started) {
      awaitHealthy(r);
    }
    return started;
  }

  /** The worker processes started so far. */
  List<Role> workers() {
    return roles.stream().filter(r -> r.name().startsWith("worker")).toList();
  }

  /** Starts one API process and waits until it reports healthy. */
  Role startApi() throws Exception {
    return startApi(List.of());
  }

  /**
   * Starts one API process with {@code jvmFlags} too (settings as {@code -Ddw.api.<setting>=...})
   * and waits until it reports healthy.
   */
  Role startApi(List<String> jvmFlags) throws Exception {
    int admin = FreePorts.pick();
    int http = FreePorts.pick();
    Role role = new Role("api", start("api", 1, admin, http, jvmFlags), admin, http);
    roles.add(role);
    awaitHealthy(role);
    return role;
  }

  private Process start(String command, int n, int adminPort, int httpPort) throws IOException {
    return start(command, n, adminPort, httpPort, List.of());
  }

  /**
   * The ahead-of-time cache {@code ./punctual aot-cache} wrote for the jar that the launcher would
   * start {@code command} with (its worker's own for {@code worker}; a JDK 25+ and a cache not
   * older than the jar; {@code -Dbench.aotCache=false} leaves it out): what the benchmark's header
   * reports.
   */
  static Optional<Path> aotCache(String command) {
    Path jar = Path.of(System.getProperty("bench.jar", "deploy/target/punctual.jar"));
    Path cache = jar.resolveSibling("punctual.aot");
    Path workerCache = jar.resolveSibling("punctual-worker.aot");
    if (command.equals("worker") && Files.isRegularFile(workerCache)) {
      cache = workerCache;
    }
    try {
      if (Runtime.version().feature() < 25
          || !Boolean.parseBoolean(System.getProperty("bench.aotCache", "true"))
          || !Files.isRegularFile(cache)
          || Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) < 0) {
        return Optional.empty();
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.of(cache.toAbsolutePath());
  }

  private Process start(String command, int n, int adminPort, int httpPort, List<String> jvmFlags)
      throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no " + jar + ": build it first (load-tests/bench does)");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (Runtime.version().feature() >= 24) {
      cmd.add("--sun-misc-unsafe-memory-access=allow");
    }
    aotCache(command).ifPresent(c -> cmd.add("-XX:AOTCache=" + c)); // as the launcher starts it
    String opts = System.getProperty("bench.processOpts", "").trim();
    if (!opts.isEmpty()) {
      cmd.addAll(List.of(opts.split("\\s+")));
    }
    cmd.addAll(jvmFlags);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add(command);
    String config = System.getProperty("bench.processConfig", "").trim();
    if (!config.isEmpty()) {
      cmd.add(config); // a YAML overlay, laid over the bundled configuration
    }
    ProcessBuilder builder = new ProcessBuilder(cmd);
    builder.environment().keySet().removeIf(k -> k.startsWith("PUNCTUAL_"));
    builder.environment().putAll(env);
    builder.environment().put("PUNCTUAL_ADMIN_PORT", Integer.toString(adminPort));
    builder.environment().put("PUNCTUAL_HTTP_PORT", Integer.toString(httpPort));
    builder.redirectErrorStream(true);
    Path log = Path.of("target", "bench-" + command + "-" + n + ".log");
    Files.createDirectories(log.getParent());
    builder.redirectOutput(log.toFile());
    return builder.start();
  }

  private static void awaitHealthy(Role r) throws Exception {
    BenchSupport.waitFor(
        () -> {
          if (!r.process().isAlive()) {
            throw new IllegalStateException(r.name() + " exited, see its log under target/");
          }
          return get(r, "/healthcheck").map(b -> true).orElse(false);
        },
        Duration.ofMinutes(2));
  }

  private static java.util.Optional<String> get(Role r, String path) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.adminPort() + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200
          ? java.util.Optional.of(response.body())
          : java.util.Optional.empty();
    } catch (IOException e) {
      return java.util.Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.Optional.empty();
    }
  }

  /** A meter's count summed over these roles (from their admin /metrics; costs no SQL). */
  static long meterCount(List<Role> roles, String meter) {
    long sum = 0;
    for (Role r : roles) {
      String body = get(r, "/metrics").orElse(null);
      if (body == null) {
        continue;
      }
      try {
        sum += Json.mapper().readTree(body).path("meters").path(meter).path("count").asLong();
      } catch (IOException e) {
        // a partial answer: counted as zero this time
      }
    }
    return sum;
  }

  /** A gauge of one role, from its admin /metrics; NaN if absent. */
  static double gauge(Role r, String name) {
    String body = get(r, "/metrics").orElse(null);
    if (body == null) {
      return Double.NaN;
    }
    try {
      JsonNode value = Json.mapper().readTree(body).path("gauges").path(name).path("value");
      return value.isNumber() ? value.asDouble() : Double.NaN;
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  /** Reads every live role's VmRSS / VmHWM now and remembers it (for after they stop). */
  void sampleRss() {
    for (Role r : roles) {
      double[] rss = BenchSupport.rssMb(r.pid());
      if (rss[0] >= 0) {
        lastRss.put(r.name(), rss);
      }
    }
  }

  /** {"worker-1": {"peak": MB, "end": MB}, ...} from the last samples. */
  ObjectNode rssJson() {
    ObjectNode out = Json.mapper().createObjectNode();
    lastRss.forEach(
        (name, rss) -> {
          ObjectNode n = out.putObject(name);
          n.put("peak", Math.round(rss[1]));
          n.put("end", Math.round(rss[0]));
        });
    return out;
  }

  String rssLine() {
    StringBuilder b = new StringBuilder();
    lastRss.forEach(
        (name, rss) ->
            b.append(b.isEmpty() ? "" : ", ")
                .append(
                    String.format(
                        Locale.ROOT, "%s RSS %.0f MB (peak %.0f)", name, rss[0], rss[1])));
    return b.toString();
  }

  /** Stops every role (SIGTERM: graceful) and waits for it. */
  @Override
  public void close() {
    sampleRss();
    for (Role r : roles) {
      r.process().destroy();
    }
    for (Role r : roles) {
      try {
        if (!r.process().waitFor(60, TimeUnit.SECONDS)) {
          r.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    roles.clear();
  }
}
