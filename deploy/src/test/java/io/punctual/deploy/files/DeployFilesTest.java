package io.punctual.deploy.files;

import static io.punctual.deploy.files.DeployFiles.at;
import static io.punctual.deploy.files.DeployFiles.list;
import static io.punctual.deploy.files.DeployFiles.map;
import static io.punctual.deploy.files.DeployFiles.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.punctual.deploy.config.LayeredConfigSource;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.files.DeployFiles.Container;
import io.punctual.deploy.files.DeployFiles.Image;
import io.punctual.deploy.files.DeployFiles.Service;
import io.punctual.worker.Worker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import net.sourceforge.argparse4j.inf.Namespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Dockerfile, the compose file and the Kubernetes manifests of {@code deploy/} against the
 * launcher itself: every container's command parses as a {@code punctual} command with its real
 * options, every environment variable is one the bundled punctual.yml reads, ports and probes are
 * the ones the configuration opens, configuration files validate as the commands validate them, and
 * every file a kustomization names exists and every patch hits a resource. No image is built and no
 * cluster is involved: {@code ComposeRehearsalE2E} runs the compose fleet for real.
 */
class DeployFilesTest {
  /**
   * Read by the API once API keys land (an admin key accepted as given at start); nothing reads it
   * before. The only variable allowed that the bundled punctual.yml does not read: drop it from
   * here when punctual.yml reads it, or keep it if the API reads the environment itself.
   */
  private static final String BOOTSTRAP_KEY = "PUNCTUAL_BOOTSTRAP_KEY";

  /** The key that seals signing secrets: every role that opens them is given it, no other. */
  private static final String SECRETS_KEY = "PUNCTUAL_SECRETS_KEY";

  /** The roles that open the namespaces' signing secrets (sign deliveries, or make secrets). */
  private static final Set<String> SEALING_ROLES = Set.of("api", "worker", "reaper");

  private static final String CONFIG_MOUNT = "/etc/punctual";

  /** The environment of {@code docker compose}: what an operator exports before {@code up}. */
  static final Map<String, String> SHELL =
      Map.of(
          BOOTSTRAP_KEY,
          "q0Zk3vX9+Jf2mH8sLr4pWt7yBc1nDe6gAu5iOo/K",
          SECRETS_KEY,
          "c2VjcmV0cyBrZXkgb2YgdGhlIGNvbXBvc2UgdGVzdHM=");

  /** Names of variables and keys that hold credentials. */
  private static final java.util.regex.Pattern SECRET_NAME =
      java.util.regex.Pattern.compile("(?i).*(password|secret|key|token).*");

  @TempDir Path tmp;

  private static Set<String> knownVariables() {
    Set<String> known = new LinkedHashSet<>(DeployFiles.bundledConfigVariables());
    known.add(BOOTSTRAP_KEY);
    return known;
  }

  private static List<Map<String, Object>> base() {
    return DeployFiles.resources(DeployFiles.k8s().resolve("base"));
  }

  private static List<Map<String, Object>> overlay() {
    return DeployFiles.resources(DeployFiles.k8s().resolve("overlays/example"));
  }

  /** The Secret punctual-secrets, as the example overlay's secretGenerator makes it. */
  private static DeployFiles.GeneratedSecret punctualSecrets() {
    return DeployFiles.generatedSecrets(DeployFiles.k8s().resolve("overlays/example")).stream()
        .filter(g -> g.name().equals("punctual-secrets"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the example overlay makes no punctual-secrets"));
  }

  private static String bundledConfigText() throws Exception {
    try (var in = DeployFilesTest.class.getClassLoader().getResourceAsStream("punctual.yml")) {
      assertThat(in).as("punctual.yml").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static PunctualConfiguration load(Path file) throws Exception {
    // The factory and source the commands use (unknown settings are refused).
    return new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
        .create(
            PunctualConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
        .build(
            new LayeredConfigSource(),
            file == null ? LayeredConfigSource.BUNDLED : file.toString());
  }

  private static HttpConnectorFactory connector(PunctualConfiguration config, boolean admin) {
    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    return (HttpConnectorFactory)
        (admin ? server.getAdminConnectors() : server.getApplicationConnectors()).get(0);
  }

  // ---------------------------------------------------------------- the launcher's commands

  @Test
  void theCommandParserRefusesWhatTheLauncherRefuses() throws Exception {
    // The check below is only worth something if it can fail.
    assertThatCode(() -> DeployFiles.parseCommand(List.of("reaper", "--ones")))
        .hasMessageContaining("--ones");
    assertThatCode(() -> DeployFiles.parseCommand(List.of("scheduler")))
        .hasMessageContaining("scheduler");
    assertThatCode(() -> DeployFiles.parseCommand(List.of("api", "a.yml", "b.yml")))
        .hasMessageContaining("b.yml");
    Namespace once = DeployFiles.parseCommand(List.of("reaper", "--once", "/etc/x.yml"));
    assertThat(once.getBoolean("once")).isTrue();
    assertThat(once.getString("file")).isEqualTo("/etc/x.yml");
    assertThat(DeployFiles.commandNames())
        .contains("api", "worker", "planner", "reaper", "migrate", "check", "dev");
  }

  // ---------------------------------------------------------------- Dockerfile

  @Test
  void theImageRunsTheProductionJarOnAJre21AsANonRootUser() throws Exception {
    Image image = DeployFiles.image(DeployFiles.dockerfile());

    assertThat(image.stages()).as("multi-stage").hasSizeGreaterThanOrEqualTo(2);
    assertThat(image.stages().get(0)).contains(":21-jdk").endsWith(" AS build");
    assertThat(image.base()).isEqualTo("eclipse-temurin:21-jre");
    String build = String.join("\n", Files.readAllLines(DeployFiles.dockerfile()));
    assertThat(build)
        .contains("./mvnw -B")
        .contains("-pl deploy -am package")
        .contains("deploy/target/punctual-production.jar");
    assertThat(image.instructions())
        .anyMatch(i -> i.startsWith("COPY --from=build") && i.contains("punctual-production.jar"))
        .noneMatch(i -> i.contains("punctual.jar "));
    assertThat(image.user()).isNotNull().doesNotStartWith("0").doesNotStartWith("root");
    assertThat(Integer.parseInt(image.user().split(":")[0])).isPositive();

    // java ... -cp <jar>:<handlers>/* io.punctual.deploy.PunctualApplication
    List<String> entrypoint = image.entrypoint();
    assertThat(entrypoint.get(0)).isEqualTo("java");
    assertThat(entrypoint.get(entrypoint.size() - 1))
        .isEqualTo(io.punctual.deploy.PunctualApplication.class.getName());
    String classPath = entrypoint.get(entrypoint.indexOf("-cp") + 1);
    assertThat(classPath.split(":")[0]).endsWith("/punctual-production.jar");
    assertThat(image.cmd()).containsExactly("help");

    // the admin port stays on the container's loopback unless a deployment says otherwise
    assertThat(image.env()).doesNotContainKey("PUNCTUAL_ADMIN_HOST");
    assertThat(bundledConfigText()).contains("bindHost: ${PUNCTUAL_ADMIN_HOST:-127.0.0.1}");
    assertThat(knownVariables()).containsAll(image.env().keySet());
    PunctualConfiguration bundled = load(null);
    assertThat(image.instructions())
        .contains(
            "EXPOSE "
                + connector(bundled, false).getPort()
                + " "
                + connector(bundled, true).getPort());
  }

  // ---------------------------------------------------------------- compose

  @Test
  void composeRunsTheWholeFleetWithTheLaunchersCommandsAndVariables() throws Exception {
    Map<String, Service> services = DeployFiles.services(DeployFiles.compose(), SHELL);
    Set<String> roles = new HashSet<>();
    Set<String> known = knownVariables();
    for (Service service : services.values()) {
      if (!service.punctual()) {
        continue;
      }
      Namespace parsed = DeployFiles.parseCommand(service.command());
      roles.add(service.command().get(0));
      assertThat(parsed.getString("file"))
          .as(service.name() + ": no config file, the bundled one")
          .isEqualTo(LayeredConfigSource.BUNDLED);
      assertThat(known).as(service.name()).containsAll(service.environment().keySet());
      assertThat(service.environment())
          .as(service.name())
          .containsKeys(
              "PUNCTUAL_DATABASE_URL",
              "PUNCTUAL_DATABASE_USER",
              "PUNCTUAL_DATABASE_PASSWORD",
              "PUNCTUAL_REDIS_URL");
      assertThat(service.environment().get("PUNCTUAL_DATABASE_URL"))
          .startsWith("jdbc:postgresql://postgres:5432/");
      assertThat(service.environment().get("PUNCTUAL_REDIS_URL")).isEqualTo("redis://redis:6379");
      // one service builds the image, the others must not try to pull it from a registry
      assertThat(
              service.raw().containsKey("build")
                  || "never".equals(service.raw().get("pull_policy")))
          .as(service.name() + ": built here or never pulled")
          .isTrue();
      boolean oneShot = service.command().get(0).equals("migrate");
      if (oneShot) {
        assertThat(service.raw().get("restart")).isEqualTo("no");
        assertThat(at(service.raw(), "depends_on", "postgres", "condition"))
            .isEqualTo("service_healthy");
      } else {
        assertThat(at(service.raw(), "depends_on", "migrate", "condition"))
            .as(service.name() + " starts once the migrations are done")
            .isEqualTo("service_completed_successfully");
        List<String> health = strings(at(service.raw(), "healthcheck", "test"));
        assertThat(String.join(" ", health))
            .as(service.name() + " health check")
            .contains("/dev/tcp/127.0.0.1/8081")
            .contains("GET /healthcheck");
      }
      assertThat(service.environment().containsKey(BOOTSTRAP_KEY))
          .as(service.name() + ": only the API is given the bootstrap key")
          .isEqualTo(service.command().get(0).equals("api"));
      assertThat(service.environment().get(SECRETS_KEY))
          .as(service.name() + ": the roles that open signing secrets share one key, no other")
          .isEqualTo(
              SEALING_ROLES.contains(service.command().get(0)) ? SHELL.get(SECRETS_KEY) : null);
    }
    assertThat(roles).containsExactlyInAnyOrder("migrate", "api", "worker", "planner", "reaper");
    assertThat(services.get("worker").replicas()).isEqualTo(2);
    assertThat(services.get("api").environment())
        .containsEntry(BOOTSTRAP_KEY, SHELL.get(BOOTSTRAP_KEY));
    assertThat(strings(at(services.get("postgres").raw(), "healthcheck", "test")))
        .contains("pg_isready");
    // autoprewarm: the console's first calls after a restart do not wait on the disk
    assertThat(services.get("postgres").command())
        .containsSubsequence("postgres", "-c", "shared_preload_libraries=pg_prewarm");
    assertThat(strings(at(services.get("redis").raw(), "healthcheck", "test")))
        .contains("redis-cli", "ping");
    // compose stops a container after 10 s unless told otherwise: the workers' handlers need
    // worker.shutdownGrace (the bundled default, since compose names no config file)
    Duration grace =
        Duration.ofSeconds(parseSeconds(at(services.get("worker").raw(), "stop_grace_period")));
    assertThat(grace).isGreaterThan(load(null).worker.shutdownGrace.plus(Worker.AFTER_INTERRUPT));
  }

  @Test
  void composeTakesTheBootstrapKeyFromTheEnvironmentOnlyAndBindsToLoopback() throws Exception {
    // no fixed key in the file: the value is compose's "required" interpolation of the variable
    Map<String, Object> raw = DeployFiles.document(DeployFiles.compose());
    Object written = at(raw, "services", "api", "environment", BOOTSTRAP_KEY);
    assertThat(String.valueOf(written)).matches("\\$\\{" + BOOTSTRAP_KEY + ":\\?[^}]*32[^}]*}");
    for (Map.Entry<String, Object> e : map(raw.get("services")).entrySet()) {
      map(at(e.getValue(), "environment"))
          .forEach(
              (name, value) -> {
                if (SECRET_NAME.matcher(name).matches() && !name.contains("PASSWORD")) {
                  assertThat(String.valueOf(value))
                      .as(e.getKey() + " " + name + ": from the environment, never written here")
                      .startsWith("${" + name + ":?");
                }
              });
    }
    // compose refuses to start without it (or with it empty), saying what to set
    for (Map<String, String> shell : List.of(Map.<String, String>of(), Map.of(BOOTSTRAP_KEY, ""))) {
      assertThatThrownBy(() -> DeployFiles.services(DeployFiles.compose(), shell))
          .hasMessageContaining("required variable " + BOOTSTRAP_KEY + " is missing a value")
          .hasMessageContaining("set " + BOOTSTRAP_KEY + " to a secret of 32+ characters");
    }

    assertThatThrownBy(
            () ->
                DeployFiles.services(DeployFiles.compose(), Map.of(BOOTSTRAP_KEY, "x".repeat(40))))
        .hasMessageContaining("required variable " + SECRETS_KEY + " is missing a value")
        .hasMessageContaining("base64 of 32 random bytes");

    // every published port is on this machine's loopback unless the environment says otherwise
    Map<String, Service> services = DeployFiles.services(DeployFiles.compose(), SHELL);
    for (Service service : services.values()) {
      List<String> ports = strings(service.raw().get("ports"));
      for (String port : ports) {
        assertThat(port).as(service.name() + " publishes").startsWith("127.0.0.1:");
      }
      // a container's admin port is on its loopback (the health check runs inside), unless it is
      // published: then it listens on the container's interfaces, published on loopback only
      boolean adminPublished = ports.stream().anyMatch(p -> p.endsWith(":8081"));
      if (service.punctual()) {
        assertThat(service.environment().get("PUNCTUAL_ADMIN_HOST"))
            .as(service.name() + " PUNCTUAL_ADMIN_HOST")
            .isEqualTo(adminPublished ? "0.0.0.0" : null);
      }
    }
    assertThat(strings(services.get("api").raw().get("ports")))
        .containsExactly("127.0.0.1:8080:8080", "127.0.0.1:8081:8081");
    Map<String, String> open = new java.util.HashMap<>(SHELL);
    open.put("PUNCTUAL_API_BIND", "0.0.0.0");
    assertThat(
            strings(
                DeployFiles.services(DeployFiles.compose(), open).get("api").raw().get("ports")))
        .containsExactly("0.0.0.0:8080:8080", "127.0.0.1:8081:8081");
  }

  @Test
  void composeInterpolationReadsTheEnvironmentAsComposeDoes() {
    Map<String, String> shell = Map.of("SET", "v", "EMPTY", "");
    assertThat(DeployFiles.interpolate("${SET}-$SET-${UNSET}-$$SET", shell)).isEqualTo("v-v--$SET");
    assertThat(DeployFiles.interpolate("${UNSET:-d}|${EMPTY:-d}|${EMPTY-d}|${SET:-d}", shell))
        .isEqualTo("d|d||v");
    assertThat(DeployFiles.interpolate("${SET:+a}|${EMPTY:+a}|${EMPTY+a}|${UNSET+a}", shell))
        .isEqualTo("a||a|");
    assertThat(DeployFiles.interpolate("${EMPTY?m}|${SET:?m}", shell)).isEqualTo("|v");
    assertThatThrownBy(() -> DeployFiles.interpolate("${EMPTY:?say so}", shell))
        .hasMessage("required variable EMPTY is missing a value: say so");
    assertThatThrownBy(() -> DeployFiles.interpolate("${UNSET?say so}", shell))
        .hasMessage("required variable UNSET is missing a value: say so");
  }

  private static long parseSeconds(Object value) {
    String text = String.valueOf(value);
    assertThat(text).matches("\\d+s");
    return Long.parseLong(text.substring(0, text.length() - 1));
  }

  // ---------------------------------------------------------------- Kubernetes

  @Test
  void everyContainerRunsALauncherCommandWithKnownVariablesAndTheMountedConfig() throws Exception {
    List<Map<String, Object>> resources = base();
    Map<String, Object> env =
        map(at(DeployFiles.find(resources, "ConfigMap", "punctual-env"), "data"));
    // the Secret is not in the base: the overlay's secretGenerator makes it from the operator's
    // file (its keys read from the template beside it)
    Set<String> secrets = punctualSecrets().keys();
    Map<String, Object> config =
        map(at(DeployFiles.find(resources, "ConfigMap", "punctual-config"), "data"));
    Set<String> known = knownVariables();
    assertThat(known).containsAll(env.keySet()).containsAll(secrets);
    // the probes come from outside the pod: every pod opens its admin port (the image does not)
    assertThat(env).containsEntry("PUNCTUAL_ADMIN_HOST", "0.0.0.0");
    assertThat(secrets)
        .containsExactlyInAnyOrder("PUNCTUAL_DATABASE_PASSWORD", BOOTSTRAP_KEY, SECRETS_KEY);

    Set<String> commands = new HashSet<>();
    List<Container> containers = DeployFiles.containers(resources);
    assertThat(containers).hasSize(5);
    for (Container c : containers) {
      assertThat(c.container().get("image")).as(c.toString()).isEqualTo("punctual");
      assertThat(c.container()).as(c + ": the image's entry point").doesNotContainKey("command");
      Namespace parsed = DeployFiles.parseCommand(c.args());
      commands.add(String.join(" ", c.args().subList(0, c.args().size() - 1)));

      // the config file argument is the ConfigMap's key where it is mounted
      String file = parsed.getString("file");
      assertThat(file).as(c.toString()).isEqualTo(CONFIG_MOUNT + "/punctual.yml");
      assertThat(config).containsKey(Path.of(file).getFileName().toString());
      Map<String, Object> mount =
          list(c.container().get("volumeMounts")).stream()
              .map(DeployFiles::map)
              .filter(m -> CONFIG_MOUNT.equals(m.get("mountPath")))
              .findFirst()
              .orElseThrow(() -> new AssertionError(c + " does not mount " + CONFIG_MOUNT));
      Map<String, Object> volume =
          list(c.pod().get("volumes")).stream()
              .map(DeployFiles::map)
              .filter(v -> mount.get("name").equals(v.get("name")))
              .findFirst()
              .orElseThrow();
      assertThat(at(volume, "configMap", "name")).isEqualTo("punctual-config");

      // every variable: from the env ConfigMap, or a key of the Secret, and one Punctual reads
      assertThat(list(c.container().get("envFrom")))
          .as(c.toString())
          .containsExactly(Map.of("configMapRef", Map.of("name", "punctual-env")));
      Set<String> names = new HashSet<>(env.keySet());
      for (Object e : list(c.container().get("env"))) {
        Map<String, Object> variable = map(e);
        String name = String.valueOf(variable.get("name"));
        names.add(name);
        Map<String, Object> ref = map(at(variable, "valueFrom", "secretKeyRef"));
        assertThat(ref).as(c + " " + name).containsEntry("name", "punctual-secrets");
        assertThat(secrets).as(c + " " + name).contains(String.valueOf(ref.get("key")));
      }
      assertThat(known).as(c.toString()).containsAll(names);
      assertThat(names).as(c.toString()).contains("PUNCTUAL_DATABASE_PASSWORD");
      assertThat(names.contains(BOOTSTRAP_KEY))
          .as(c + ": only the API is given the bootstrap key")
          .isEqualTo(c.args().get(0).equals("api"));
      assertThat(names.contains(SECRETS_KEY))
          .as(c + ": the roles that open signing secrets are given the secrets key, no other")
          .isEqualTo(SEALING_ROLES.contains(c.args().get(0)));

      assertThat(at(c.container(), "resources", "requests", "cpu")).as(c.toString()).isNotNull();
      assertThat(at(c.container(), "resources", "requests", "memory")).as(c.toString()).isNotNull();
      assertThat(at(c.pod(), "securityContext", "runAsNonRoot")).isEqualTo(true);
    }
    assertThat(commands)
        .containsExactlyInAnyOrder("api", "worker", "planner", "reaper --once", "migrate");
    assertThat(DeployFiles.find(resources, "CronJob", "punctual-reaper")).isNotNull();
    assertThat(DeployFiles.find(resources, "Job", "punctual-migrate")).isNotNull();
  }

  @Test
  void theMountedConfigValidatesAndWorkersMayFinishTheirHandlersBeforeTheyAreKilled()
      throws Exception {
    List<Map<String, Object>> resources = base();
    Map<String, Object> data =
        map(at(DeployFiles.find(resources, "ConfigMap", "punctual-config"), "data"));
    Path file = tmp.resolve("punctual.yml");
    Files.writeString(file, String.valueOf(data.get("punctual.yml")), StandardCharsets.UTF_8);
    PunctualConfiguration config = load(file);
    config.validate();

    Map<String, Object> worker = DeployFiles.find(resources, "Deployment", "punctual-worker");
    Object grace = at(worker, "spec", "template", "spec", "terminationGracePeriodSeconds");
    assertThat(Duration.ofSeconds(((Number) grace).longValue()))
        .as(
            "terminationGracePeriodSeconds above worker.shutdownGrace and the wait for the"
                + " interrupted handlers before their attempts are handed back")
        .isGreaterThan(config.worker.shutdownGrace.plus(Worker.AFTER_INTERRUPT));
  }

  @Test
  void probesAndPortsAreTheOnesTheConfigurationOpens() throws Exception {
    PunctualConfiguration bundled = load(null);
    int adminPort = connector(bundled, true).getPort();
    int httpPort = connector(bundled, false).getPort();
    List<Map<String, Object>> resources = base();
    int probed = 0;
    for (Container c : DeployFiles.containers(resources)) {
      Map<String, Integer> ports = new java.util.HashMap<>();
      for (Object p : list(c.container().get("ports"))) {
        ports.put(
            String.valueOf(map(p).get("name")), ((Number) map(p).get("containerPort")).intValue());
      }
      if (!c.kind().equals("Deployment")) {
        assertThat(ports).as(c + " serves nothing").isEmpty();
        continue;
      }
      assertThat(ports).as(c.toString()).containsEntry("admin", adminPort);
      if (c.args().get(0).equals("api")) {
        assertThat(ports).containsEntry("http", httpPort);
      } else {
        assertThat(ports).as(c + ": admin port only").hasSize(1);
      }
      Map<String, String> paths = new java.util.HashMap<>();
      for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
        Map<String, Object> get = map(at(c.container(), probe, "httpGet"));
        assertThat(get.get("port")).as(c + " " + probe).isEqualTo("admin");
        paths.put(probe, String.valueOf(get.get("path")));
      }
      // liveness: the process answers; readiness: PostgreSQL and Redis answer too
      assertThat(paths)
          .containsEntry("startupProbe", "/ping")
          .containsEntry("livenessProbe", "/ping")
          .containsEntry("readinessProbe", "/healthcheck");
      probed++;
    }
    assertThat(probed).isEqualTo(3);

    Map<String, Object> service = DeployFiles.find(resources, "Service", "punctual-api");
    assertThat(list(at(service, "spec", "ports")))
        .anySatisfy(p -> assertThat(map(p)).containsEntry("targetPort", "http"));
    assertThat(map(at(service, "spec", "selector")))
        .isEqualTo(
            map(
                at(
                    DeployFiles.find(resources, "Deployment", "punctual-api"),
                    "spec",
                    "selector",
                    "matchLabels")));
  }

  @Test
  void everyLongRunningRoleHasADisruptionBudgetAndTwoPlannersRun() {
    List<Map<String, Object>> resources = base();
    for (String role : List.of("api", "worker", "planner")) {
      Map<String, Object> deployment =
          DeployFiles.find(resources, "Deployment", "punctual-" + role);
      Map<String, Object> pdb =
          DeployFiles.find(resources, "PodDisruptionBudget", "punctual-" + role);
      assertThat(map(at(pdb, "spec", "selector", "matchLabels")))
          .isEqualTo(map(at(deployment, "spec", "selector", "matchLabels")))
          .isEqualTo(map(at(deployment, "spec", "template", "metadata", "labels")));
    }
    assertThat(
            at(DeployFiles.find(resources, "Deployment", "punctual-planner"), "spec", "replicas"))
        .isEqualTo(2);
  }

  @Test
  void theKubernetesFilesHoldNoSecretValue() throws Exception {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(DeployFiles.k8s())) {
      files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path file : files) {
      for (Map<String, Object> resource : DeployFiles.documents(file)) {
        String what = DeployFiles.k8s().relativize(file) + ": " + resource.get("kind");
        if ("Secret".equals(resource.get("kind"))) {
          assertThat(resource).as(what).doesNotContainKeys("data", "stringData");
        }
        if ("ConfigMap".equals(resource.get("kind"))) {
          map(resource.get("data"))
              .forEach(
                  (key, value) -> {
                    assertThat(key).as(what).doesNotMatch(SECRET_NAME.pattern());
                    assertThat(String.valueOf(value))
                        .as(what + " " + key)
                        .doesNotContain("password", "bootstrapKey", "signingSecrets");
                  });
        }
        for (Object g : list(resource.get("secretGenerator"))) {
          assertThat(map(g)).as(what + " secretGenerator").doesNotContainKey("literals");
        }
      }
    }
    // no container is given a credential as a literal value
    List<Map<String, Object>> all = new ArrayList<>(base());
    all.addAll(overlay());
    for (Container c : DeployFiles.containers(all)) {
      for (Object e : list(c.container().get("env"))) {
        Map<String, Object> variable = map(e);
        if (SECRET_NAME.matcher(String.valueOf(variable.get("name"))).matches()) {
          assertThat(variable).as(c + " " + variable.get("name")).doesNotContainKey("value");
          assertThat(at(variable, "valueFrom", "secretKeyRef")).as(c.toString()).isNotNull();
        }
      }
    }
    assertThat(DeployFiles.generatedSecrets(DeployFiles.k8s().resolve("base"))).isEmpty();

    // the overlay makes the Secret from a file the operator writes, which git does not keep: a
    // template beside it names every key and holds no value
    DeployFiles.GeneratedSecret secret = punctualSecrets();
    assertThat(secret.envFiles()).hasSize(1);
    Path envFile = secret.envFiles().get(0);
    Path repository = DeployFiles.deployDir().getParent();
    List<String> ignored =
        Files.readAllLines(repository.resolve(".gitignore"), StandardCharsets.UTF_8);
    Path relative = repository.relativize(envFile);
    assertThat(ignored)
        .as(".gitignore keeps " + relative + " out of git")
        .anyMatch(
            line ->
                !line.isBlank()
                    && !line.startsWith("#")
                    && java.nio.file.FileSystems.getDefault()
                        .getPathMatcher("glob:" + line.strip())
                        .matches(relative));
    Path template = Path.of(envFile + ".example");
    for (String line : Files.readAllLines(template, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        assertThat(line).as(template + ": a key without a value").endsWith("=");
      }
    }
    // KEDA's TriggerAuthentication names the Secret: kustomize must not add a hash to its name
    assertThat(at(secret.entry(), "options", "disableNameSuffixHash")).isEqualTo(true);
  }

  @Test
  void kedaCountsTheDueJobsInTheRealSchemaAndOwnsTheWorkerCount() throws Exception {
    List<Map<String, Object>> resources = overlay();
    Map<String, Object> scaled = DeployFiles.find(resources, "ScaledObject", "punctual-worker");
    assertThat(at(scaled, "spec", "scaleTargetRef", "name")).isEqualTo("punctual-worker");
    DeployFiles.find(resources, "Deployment", "punctual-worker");
    Map<String, Object> trigger = map(list(at(scaled, "spec", "triggers")).get(0));
    assertThat(trigger.get("type")).isEqualTo("postgresql");
    String query = String.valueOf(at(trigger, "metadata", "query"));
    assertThat(query)
        .isEqualTo(
            "SELECT count(*) FROM jobs WHERE status = 'PENDING' AND run_at <= now()"
                + " AND namespace IN ('default')");
    // the table, its columns and the partial index the query uses, in the migrations
    String v1 = migration("V1__jobs_and_executions.sql");
    assertThat(v1)
        .contains("CREATE TABLE jobs (")
        .containsPattern("\\n    status +text")
        .containsPattern("\\n    run_at +timestamptz NOT NULL")
        .containsPattern("\\n    namespace +text")
        .contains(
            "CREATE INDEX jobs_pending_run_at ON jobs (run_at) WHERE status = 'PENDING' AND run_at"
                + " IS NOT NULL;");
    Map<String, Object> authentication =
        DeployFiles.find(
            resources,
            "TriggerAuthentication",
            String.valueOf(at(trigger, "authenticationRef", "name")));
    Map<String, Object> secretRef = map(list(at(authentication, "spec", "secretTargetRef")).get(0));
    assertThat(secretRef)
        .containsEntry("parameter", "password")
        .containsEntry("name", "punctual-secrets")
        .containsEntry("key", "PUNCTUAL_DATABASE_PASSWORD");
  }

  private static String migration(String name) throws Exception {
    try (var in =
        DeployFilesTest.class.getClassLoader().getResourceAsStream("db/migration/" + name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  // ---------------------------------------------------------------- kustomize

  /**
   * What {@code kubectl kustomize} would refuse, checked without it (it is not on every machine
   * that runs the build): every file a kustomization names exists and parses, every patch names a
   * resource of what it patches, every image it renames is one the resources use.
   */
  @Test
  void everyKustomizationNamesFilesThatExistAndPatchesResourcesThatDo() throws Exception {
    List<Path> kustomizations;
    try (Stream<Path> files = Files.walk(DeployFiles.k8s())) {
      kustomizations =
          files.filter(p -> p.getFileName().toString().equals("kustomization.yaml")).toList();
    }
    assertThat(kustomizations).hasSize(3);
    for (Path file : kustomizations) {
      Path dir = file.getParent();
      Map<String, Object> k = DeployFiles.document(file);
      assertThat(String.valueOf(k.get("apiVersion"))).startsWith("kustomize.config.k8s.io/");
      assertThat(k.get("kind")).isIn("Kustomization", "Component");
      List<Map<String, Object>> targets = new ArrayList<>();
      for (String entry : strings(k.get("resources"))) {
        Path path = dir.resolve(entry).normalize();
        assertThat(path).as(file + ": " + entry).exists();
      }
      for (Object g : list(k.get("secretGenerator"))) {
        for (String env : strings(map(g).get("envs"))) {
          Path path = dir.resolve(env).normalize();
          assertThat(Files.isRegularFile(path) || Files.isRegularFile(Path.of(path + ".example")))
              .as(file + ": " + env + " or its template " + env + ".example")
              .isTrue();
        }
      }
      for (String entry : strings(k.get("components"))) {
        Path path = dir.resolve(entry).normalize().resolve("kustomization.yaml");
        assertThat(path).as(file + ": " + entry).exists();
        assertThat(DeployFiles.document(path).get("kind")).isEqualTo("Component");
      }
      // a component patches what the overlays that include it hold: the base
      targets.addAll(
          k.get("kind").equals("Component")
              ? DeployFiles.resources(DeployFiles.k8s().resolve("base"))
              : DeployFiles.resources(dir));
      if (k.get("kind").equals("Component")) {
        targets.addAll(DeployFiles.resources(dir));
      }
      for (Object p : list(k.get("patches"))) {
        Map<String, Object> patch = map(p);
        String kind;
        String name;
        if (patch.containsKey("path")) {
          Path path = dir.resolve(String.valueOf(patch.get("path")));
          assertThat(path).as(file + ": patch").exists();
          Map<String, Object> body = DeployFiles.document(path);
          kind = String.valueOf(body.get("kind"));
          name = String.valueOf(at(body, "metadata", "name"));
        } else {
          kind = String.valueOf(at(patch, "target", "kind"));
          name = String.valueOf(at(patch, "target", "name"));
          assertThat(patch.get("patch")).as(file + ": inline patch").isNotNull();
        }
        assertThat(targets)
            .as(file + ": patch of " + kind + "/" + name)
            .anyMatch(r -> kind.equals(r.get("kind")) && name.equals(at(r, "metadata", "name")));
      }
      for (Object r : list(k.get("replicas"))) {
        String name = String.valueOf(map(r).get("name"));
        assertThat(targets).anyMatch(t -> name.equals(at(t, "metadata", "name")));
      }
      Set<String> images = new HashSet<>();
      DeployFiles.containers(targets)
          .forEach(c -> images.add(String.valueOf(c.container().get("image"))));
      for (Object i : list(k.get("images"))) {
        assertThat(images).contains(String.valueOf(map(i).get("name")));
      }
    }
  }
}
