package io.punctual.deploy.e2e;

import static io.punctual.deploy.files.DeployFiles.at;
import static io.punctual.deploy.files.DeployFiles.map;
import static io.punctual.deploy.files.DeployFiles.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.common.config.WeakSecrets;
import io.punctual.deploy.files.DeployFiles;
import io.punctual.deploy.files.DeployFiles.Container;
import io.punctual.deploy.files.DeployFiles.Image;
import io.punctual.deploy.files.DeployFiles.Service;
import io.punctual.embedded.EmbeddedPostgresServer;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's rehearsal of {@code deploy/docker-compose.yml} without Docker: every Punctual
 * service of the compose file runs as a local process with its exact command (the Dockerfile's
 * entry point plus the service's {@code command}) and environment (the Dockerfile's {@code ENV}
 * plus the service's {@code environment}), on the production jar, against a real PostgreSQL and
 * Redis (embedded, with the role, password and database the compose file gives its {@code postgres}
 * service). Rewritten, and only that: the host names {@code postgres} and {@code redis} with their
 * ports become the embedded servers' addresses; each process gets its own free HTTP and admin port
 * (a container's 8080 and 8081); the jar and handler paths of the image become the built jar and an
 * empty directory; {@code java} is this JDK's. The compose health checks are run as written (bash
 * against the admin port), the Kubernetes probes' paths are asked, the KEDA query is run, and the
 * Kubernetes reaper CronJob's and migration Job's arguments run with the ConfigMap's YAML where the
 * pod would mount it.
 *
 * <p>What it shows: migrate exits 0; the API, both workers, the planner and the reaper become
 * healthy, and none serves a Dropwizard task; jobs submitted over REST (with the bootstrap key the
 * rehearsal exports for compose, as an operator would, as a bearer token) wait in the KEDA count
 * until the workers start, then run; the planner materialises a schedule whose jobs run; {@code
 * reaper --once} exits 0; every long-running process stops with status 0 on SIGTERM. What it cannot
 * show: the image builds, the containers' network, Kubernetes itself.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ComposeRehearsalE2E {
  private static final Duration START = Duration.ofMinutes(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int CONTAINER_HTTP_PORT = 8080;
  private static final int CONTAINER_ADMIN_PORT = 8081;
  private static final String BOOTSTRAP_KEY = "PUNCTUAL_BOOTSTRAP_KEY";
  private static final String SECRETS_KEY = "PUNCTUAL_SECRETS_KEY";

  @TempDir Path tmp;

  private final List<PunctualProcess> running = new ArrayList<>();
  private final Map<PunctualProcess, Service> services = new LinkedHashMap<>();
  private final Map<PunctualProcess, Integer> adminPorts = new LinkedHashMap<>();
  private EmbeddedPostgresServer postgres;
  private EmbeddedRedisServer redis;

  /** Where PostgreSQL and Redis are, and the names this run uses there. */
  private String pgHostPort;

  private String adminUrl;
  private String adminUser = "postgres";
  private String adminPassword = "";
  private String database;
  private String role;
  private String redisUrl;

  /**
   * Only on the servers of the environment: this run's tag, its Redis key prefix (passed as
   * -Ddw.redis.keyPrefix) and the end of its role's and database's names.
   */
  private String keyPrefix;

  private Image image;
  private Path handlers;
  private String apiBase;
  private String bearer;

  @AfterEach
  void stopEverything() throws Exception {
    for (PunctualProcess process : running) {
      process.close();
    }
    if (keyPrefix != null) {
      // servers of the environment: drop what this run created, nothing else
      try (Connection c = DriverManager.getConnection(adminUrl, adminUser, adminPassword);
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS \"" + database + "\" WITH (FORCE)");
        s.execute("DROP ROLE IF EXISTS \"" + role + "\"");
      }
    }
    if (keyPrefix != null) {
      try (RedisClient client = RedisClient.create(redisUrl);
          StatefulRedisConnection<String, String> c = client.connect()) {
        ScanArgs match = ScanArgs.Builder.matches(keyPrefix + ":*").limit(1_000);
        KeyScanCursor<String> cursor = c.sync().scan(match);
        while (true) {
          if (!cursor.getKeys().isEmpty()) {
            c.sync().del(cursor.getKeys().toArray(String[]::new));
          }
          if (cursor.isFinished()) {
            break;
          }
          cursor = c.sync().scan(cursor, match);
        }
      }
    }
    if (redis != null) {
      redis.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void theComposeFleetRunsAsWrittenAgainstRealServers() throws Exception {
    image = DeployFiles.image(DeployFiles.dockerfile());
    // What the operator exports before `docker compose up`: the file holds no key of its own
    Map<String, Service> compose =
        DeployFiles.services(
            DeployFiles.compose(),
            Map.of(BOOTSTRAP_KEY, newBootstrapKey(), SECRETS_KEY, newSecretsKey()));
    handlers = Files.createDirectories(tmp.resolve("handlers"));

    Map<String, String> pg = compose.get("postgres").environment();
    Map<String, String> hosts =
        prepareServers(pg, serverSettings(compose.get("postgres").command()));

    // 1. migrate, once, exits 0
    Service migrate = only(compose, "migrate");
    try (PunctualProcess process = start(migrate, hosts, 0)) {
      assertThat(process.awaitExit(START)).as(process.tail()).isZero();
      assertThat(process.output()).contains("migrated jdbc:postgresql://127.0.0.1:");
    }

    // 2. the API: healthy by the compose health check, alive and ready by the probes' paths
    Service apiService = only(compose, "api");
    bearer = apiService.environment().get(BOOTSTRAP_KEY);
    PunctualProcess api = start(apiService, hosts, 0);
    awaitHealthy(api);
    assertProbesAnswer(api);

    // 3. jobs submitted before any worker runs wait in the count KEDA scales the workers on
    List<String> jobs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> created =
          post("/api/v1/jobs", "{\"type\":\"noop\",\"tags\":[\"rehearsal\"]}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      jobs.add(JSON.readTree(created.body()).get("id").asText());
    }
    assertThat(kedaCount(pg)).isGreaterThanOrEqualTo(5);

    // 4. every other long-running service (workers times their replicas), in file order
    List<PunctualProcess> fleet = new ArrayList<>(List.of(api));
    for (Service service : compose.values()) {
      if (!service.punctual() || service == migrate || service == apiService) {
        continue;
      }
      for (int replica = 0; replica < service.replicas(); replica++) {
        fleet.add(start(service, hosts, replica));
      }
    }
    for (PunctualProcess process : fleet) {
      awaitHealthy(process);
      // no Dropwizard task on any role's admin port
      for (String task : List.of("/tasks/gc", "/tasks/log-level?logger=ROOT&level=TRACE")) {
        assertThat(postStatus("http://127.0.0.1:" + adminPorts.get(process) + task))
            .as(services.get(process).name() + " " + task)
            .isEqualTo(404);
      }
    }
    assertThat(fleet).hasSize(5); // api, 2 workers, planner, reaper

    // 5. the workers run the jobs; nothing due is left for KEDA to count
    for (String id : jobs) {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> "SUCCEEDED".equals(job(id).path("status").asText()));
      assertThat(job(id).path("workerId").asText()).isNotBlank();
    }
    assertThat(kedaCount(pg)).isZero();
    JsonNode workers = JSON.readTree(get("/api/v1/workers").body()).path("items");
    assertThat(workers.findValuesAsText("status").stream().filter("alive"::equals).count())
        .as(workers.toString())
        .isEqualTo(only(compose, "worker").replicas());

    // 6. the planner materialises a schedule; its jobs run
    HttpResponse<String> schedule =
        post("/api/v1/schedules", "{\"name\":\"rehearsal\",\"every\":\"PT1S\",\"type\":\"noop\"}");
    assertThat(schedule.statusCode()).as(schedule.body()).isEqualTo(201);
    String scheduleId = JSON.readTree(schedule.body()).get("id").asText();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                JSON.readTree(
                            get("/api/v1/schedules/" + scheduleId + "/jobs?status=SUCCEEDED")
                                .body())
                        .path("items")
                        .size()
                    >= 2);

    // 7. the Kubernetes CronJob's `reaper --once` and the migration Job, with the ConfigMap's YAML
    // where the pod mounts it, and the compose environment (no cluster to take the ConfigMap's)
    List<Map<String, Object>> k8s = DeployFiles.resources(DeployFiles.k8s().resolve("base"));
    Path config = tmp.resolve("punctual.yml");
    Files.writeString(
        config,
        String.valueOf(
            at(DeployFiles.find(k8s, "ConfigMap", "punctual-config"), "data", "punctual.yml")),
        StandardCharsets.UTF_8);
    for (Container container : DeployFiles.containers(k8s)) {
      if (!container.kind().equals("CronJob") && !container.kind().equals("Job")) {
        continue;
      }
      List<String> args = new ArrayList<>(container.args());
      assertThat(args.get(args.size() - 1)).isEqualTo("/etc/punctual/punctual.yml");
      args.set(args.size() - 1, config.toString());
      Service oneShot =
          new Service(container.toString(), null, true, args, migrate.environment(), 1, Map.of());
      try (PunctualProcess process = start(oneShot, hosts, 0)) {
        assertThat(process.awaitExit(START)).as(process.tail()).isZero();
        assertThat(process.output())
            .contains(args.get(0).equals("reaper") ? "reaper pass: " : "migrated jdbc:");
      }
    }

    // 8. SIGTERM: every long-running role stops gracefully, within compose's grace period
    for (PunctualProcess process : fleet) {
      Object grace = services.get(process).raw().get("stop_grace_period");
      Duration stop =
          Duration.ofSeconds(
              grace == null ? 10 : Long.parseLong(grace.toString().replace("s", "")));
      assertThat(process.stop(stop))
          .as(services.get(process).name() + ":\n" + process.tail())
          .isZero();
    }
  }

  /** A random secrets key, as `openssl rand -base64 32` makes one. */
  private static String newSecretsKey() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** A random admin key, as `openssl rand -base64 48` would make one (never a weak-looking one). */
  private static String newBootstrapKey() {
    SecureRandom random = new SecureRandom();
    while (true) {
      byte[] bytes = new byte[36];
      random.nextBytes(bytes);
      String key = Base64.getEncoder().encodeToString(bytes);
      if (WeakSecrets.weakness(key).isEmpty()) {
        return key;
      }
    }
  }

  /** The status of {@code POST url} without a body. */
  private static int postStatus(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * The {@code -c name=value} pairs of the postgres service's command ({@code postgres -c
   * shared_preload_libraries=pg_prewarm}); the command must start the server itself.
   */
  static Map<String, String> serverSettings(List<String> command) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (command == null || command.isEmpty()) {
      return settings;
    }
    assertThat(command.get(0)).as("the postgres service's command").isEqualTo("postgres");
    for (int i = 1; i < command.size(); i++) {
      assertThat(command.get(i)).as("postgres service argument %d", i).isEqualTo("-c");
      String[] kv = command.get(++i).split("=", 2);
      assertThat(kv).as("a -c setting is name=value").hasSize(2);
      settings.put(kv[0], kv[1]);
    }
    return settings;
  }

  /**
   * PostgreSQL as the postgres image would set it up from the compose file (its user, owner of its
   * database, with its password) and Redis: embedded servers of this test's own; or, when {@code
   * PUNCTUAL_TEST_DATABASE_URL} and {@code PUNCTUAL_TEST_REDIS_URL} name servers (as for the
   * integration tests, e.g. a local PostgreSQL 15 and Redis 7), a role and a database named for
   * this run there and a Redis key prefix of its own, all removed at the end. The embedded
   * PostgreSQL runs with the service's {@code -c} settings ({@code settings}); a named server is
   * used as it is. Returns what to replace in the services' environment.
   */
  private Map<String, String> prepareServers(Map<String, String> pg, Map<String, String> settings)
      throws Exception {
    String sharedPg = System.getenv("PUNCTUAL_TEST_DATABASE_URL");
    String sharedRedis = System.getenv("PUNCTUAL_TEST_REDIS_URL");
    database = pg.get("POSTGRES_DB");
    role = pg.get("POSTGRES_USER");
    if (sharedPg != null && sharedRedis != null) {
      String tag =
          "rehearsal_"
              + ProcessHandle.current().pid()
              + "_"
              + Long.toHexString(System.nanoTime() & 0xffffff);
      adminUrl = sharedPg;
      adminUser = System.getenv().getOrDefault("PUNCTUAL_TEST_DATABASE_USER", "postgres");
      adminPassword = System.getenv().getOrDefault("PUNCTUAL_TEST_DATABASE_PASSWORD", "");
      URI uri = URI.create(sharedPg.substring("jdbc:".length()));
      pgHostPort = uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort());
      database = database + "_" + tag;
      role = role + "_" + tag;
      redisUrl = sharedRedis;
      keyPrefix = tag;
    } else {
      // With the server settings the compose file gives its postgres service.
      postgres = EmbeddedPostgresServer.start(tmp.resolve("pg"), false, settings);
      adminUrl = postgres.jdbcUrl("postgres");
      pgHostPort = "127.0.0.1:" + postgres.port();
      redis = EmbeddedRedisServer.start(null);
      redisUrl = redis.url();
    }
    try (Connection c = DriverManager.getConnection(adminUrl, adminUser, adminPassword);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE ROLE \"" + role + "\" LOGIN PASSWORD '" + pg.get("POSTGRES_PASSWORD") + "'");
      s.execute("CREATE DATABASE \"" + database + "\" OWNER \"" + role + "\"");
      if (postgres != null) {
        for (Map.Entry<String, String> setting : settings.entrySet()) {
          try (var rs = s.executeQuery("SELECT current_setting('" + setting.getKey() + "')")) {
            rs.next();
            assertThat(rs.getString(1)).as(setting.getKey()).isEqualTo(setting.getValue());
          }
        }
      }
    }
    URI redisUri = URI.create(redisUrl);
    Map<String, String> replace = new LinkedHashMap<>();
    replace.put("//postgres:5432/" + pg.get("POSTGRES_DB"), "//" + pgHostPort + "/" + database);
    replace.put("//redis:6379", "//" + redisUri.getHost() + ":" + redisUri.getPort());
    return replace;
  }

  private static Service only(Map<String, Service> compose, String role) {
    List<Service> found =
        compose.values().stream()
            .filter(s -> s.punctual() && s.command().get(0).equals(role))
            .toList();
    assertThat(found).as("compose services running " + role).hasSize(1);
    return found.get(0);
  }

  /** The service's container as a local process: entry point + command, ENV + environment. */
  private PunctualProcess start(Service service, Map<String, String> hosts, int replica) {
    List<String> command = new ArrayList<>();
    for (String part : image.entrypoint()) {
      command.add(localPath(part));
    }
    command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(service.command().isEmpty() ? image.cmd() : service.command());

    Map<String, String> env = new LinkedHashMap<>(image.env());
    env.putAll(service.environment());
    env.replaceAll(
        (name, value) -> {
          String v = value;
          for (Map.Entry<String, String> host : hosts.entrySet()) {
            v = v.replace(host.getKey(), host.getValue());
          }
          return v;
        });
    if (env.containsKey("PUNCTUAL_DATABASE_USER")) {
      env.put(
          "PUNCTUAL_DATABASE_USER", role); // the same as the compose file's, but on a shared server
    }
    if (keyPrefix != null) {
      command.add(1, "-Ddw.redis.keyPrefix=" + keyPrefix);
    }
    int admin = FreePorts.pick();
    env.put("PUNCTUAL_ADMIN_PORT", Integer.toString(admin)); // the container's 8081
    if (service.command().get(0).equals("api")) {
      int http = FreePorts.pick();
      env.put("PUNCTUAL_HTTP_PORT", Integer.toString(http)); // the container's 8080
      apiBase = "http://127.0.0.1:" + http;
    }
    Path log =
        tmp.resolve(service.name().replaceAll("[^A-Za-z0-9]+", "-") + "-" + replica + ".log");
    PunctualProcess process = PunctualProcess.startCommand(log, env, command);
    running.add(process);
    services.put(process, service);
    adminPorts.put(process, admin);
    return process;
  }

  /** The image's paths, here: the built production jar, an empty handlers directory. */
  private String localPath(String part) {
    String jar = System.getProperty("punctual.production.jar");
    assertThat(Path.of(jar)).as("the production jar (package builds it)").isRegularFile();
    return part.replace("/opt/punctual/punctual-production.jar", jar)
        .replace("/opt/punctual/handlers", handlers.toString());
  }

  /** The service's compose health check, run as written but for the admin port. */
  private void awaitHealthy(PunctualProcess process) {
    List<String> test = strings(at(services.get(process).raw(), "healthcheck", "test"));
    assertThat(test.get(0)).isEqualTo("CMD");
    List<String> check = new ArrayList<>();
    for (String part : test.subList(1, test.size())) {
      check.add(part.replace("/" + CONTAINER_ADMIN_PORT, "/" + adminPorts.get(process)));
    }
    await()
        .atMost(START)
        .pollInterval(Duration.ofMillis(500))
        .failFast("process exited:\n" + process.tail(), () -> !process.isAlive())
        .until(() -> run(check) == 0);
    process.rememberDescendants();
  }

  private static int run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  /** The paths the Kubernetes probes ask, on this process's admin port. */
  private void assertProbesAnswer(PunctualProcess process) {
    List<String> paths = new ArrayList<>();
    for (Container c :
        DeployFiles.containers(DeployFiles.resources(DeployFiles.k8s().resolve("base")))) {
      for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
        Object path = at(c.container(), probe, "httpGet", "path");
        if (path != null) {
          paths.add(path.toString());
        }
      }
    }
    assertThat(paths).contains("/ping", "/healthcheck");
    for (String path : paths) {
      assertThat(PunctualProcess.status("http://127.0.0.1:" + adminPorts.get(process) + path))
          .as(path)
          .isEqualTo(200);
    }
  }

  /** KEDA's query, from the ScaledObject, as its user on its database. */
  private long kedaCount(Map<String, String> pg) throws Exception {
    Map<String, Object> scaled =
        DeployFiles.find(
            DeployFiles.resources(DeployFiles.k8s().resolve("components/keda")),
            "ScaledObject",
            "punctual-worker");
    // on a shared server this run's role and database stand for the ScaledObject's
    assertThat(metadata(scaled).get("dbName")).isEqualTo(pg.get("POSTGRES_DB"));
    assertThat(metadata(scaled).get("userName")).isEqualTo(pg.get("POSTGRES_USER"));
    Map<String, Object> metadata =
        map(at(DeployFiles.list(at(scaled, "spec", "triggers")).get(0), "metadata"));
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://" + pgHostPort + "/" + database,
                role,
                pg.get("POSTGRES_PASSWORD"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(String.valueOf(metadata.get("query")))) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static Map<String, Object> metadata(Map<String, Object> scaled) {
    return map(at(DeployFiles.list(at(scaled, "spec", "triggers")).get(0), "metadata"));
  }

  private JsonNode job(String id) throws IOException {
    return JSON.readTree(get("/api/v1/jobs/" + id).body());
  }

  private HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(apiBase + path)).GET());
  }

  private HttpResponse<String> post(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(apiBase + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** Every request carries the bootstrap key given to compose (an admin key). */
  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
          request
              .header("Authorization", "Bearer " + bearer)
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
