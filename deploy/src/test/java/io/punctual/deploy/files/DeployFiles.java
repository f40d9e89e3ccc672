package io.punctual.deploy.files;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.punctual.deploy.PunctualApplication;
import io.punctual.deploy.config.PunctualConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files of {@code deploy/} as data, read the way their tools read them: the
 * Dockerfile's final stage, the compose file's services, the Kubernetes resources a kustomization
 * lists. SnakeYAML (Jackson's YAML reader leaves anchors and aliases unresolved) turns YAML into
 * maps and lists. Shared by {@code DeployFilesTest} and the compose rehearsal.
 */
public final class DeployFiles {
  private DeployFiles() {}

  /** The {@code deploy} module's directory (Maven runs tests there). */
  public static Path deployDir() {
    Path dir = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    if (!Files.isRegularFile(dir.resolve("docker-compose.yml"))) {
      throw new IllegalStateException("no deploy/docker-compose.yml under " + dir);
    }
    return dir;
  }

  public static Path compose() {
    return deployDir().resolve("docker-compose.yml");
  }

  public static Path dockerfile() {
    return deployDir().resolve("Dockerfile");
  }

  public static Path k8s() {
    return deployDir().resolve("k8s");
  }

  // ---------------------------------------------------------------- YAML

  /** Every document of a YAML file (a Kubernetes manifest may hold several). */
  public static List<Map<String, Object>> documents(Path file) {
    List<Map<String, Object>> documents = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      for (Object document : new Yaml().loadAll(in)) {
        if (document != null) {
          documents.add(map(document));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return documents;
  }

  public static Map<String, Object> document(Path file) {
    List<Map<String, Object>> all = documents(file);
    if (all.size() != 1) {
      throw new IllegalStateException(file + " holds " + all.size() + " documents, not one");
    }
    return all.get(0);
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> map(Object value) {
    if (value == null) {
      return Map.of();
    }
    if (!(value instanceof Map<?, ?>)) {
      throw new IllegalStateException("not a mapping: " + value);
    }
    return (Map<String, Object>) value;
  }

  public static List<Object> list(Object value) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> items)) {
      throw new IllegalStateException("not a list: " + value);
    }
    return new ArrayList<>(items);
  }

  public static List<String> strings(Object value) {
    return list(value).stream().map(String::valueOf).toList();
  }

  /** {@code root.a.b.c}, or null when a step is missing. */
  public static Object at(Object root, String... path) {
    Object node = root;
    for (String step : path) {
      if (!(node instanceof Map<?, ?> m)) {
        return null;
      }
      node = m.get(step);
    }
    return node;
  }

  // ---------------------------------------------------------------- Dockerfile

  /**
   * The final stage of a Dockerfile: its base image, user, environment, entry point and command.
   */
  public record Image(
      List<String> stages,
      String base,
      String user,
      Map<String, String> env,
      List<String> entrypoint,
      List<String> cmd,
      List<String> instructions) {}

  /** Parses the instructions Punctual's Dockerfile uses (line continuations, exec form JSON). */
  public static Image image(Path dockerfile) {
    List<String> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : readLines(dockerfile)) {
      String trimmed = line.strip();
      if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      current.append(trimmed);
      instructions.add(current.toString());
      current.setLength(0);
    }
    List<String> stages = new ArrayList<>();
    String user = null;
    Map<String, String> env = new LinkedHashMap<>();
    List<String> entrypoint = List.of();
    List<String> cmd = List.of();
    List<String> last = new ArrayList<>();
    for (String instruction : instructions) {
      String[] split = instruction.split("\\s+", 2);
      String keyword = split[0].toUpperCase(java.util.Locale.ROOT);
      String rest = split.length > 1 ? split[1] : "";
      switch (keyword) {
        case "FROM" -> {
          stages.add(rest);
          user = null;
          env.clear();
          entrypoint = List.of();
          cmd = List.of();
          last.clear();
        }
        case "USER" -> user = rest;
        case "ENV" -> {
          Matcher m = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\\S+)").matcher(rest);
          while (m.find()) {
            env.put(m.group(1), m.group(2).replace("\"", ""));
          }
        }
        case "ENTRYPOINT" -> entrypoint = execForm(rest);
        case "CMD" -> cmd = execForm(rest);
        default -> {}
      }
      last.add(instruction);
    }
    String base = stages.isEmpty() ? null : stages.get(stages.size() - 1).split("\\s+")[0];
    return new Image(
        List.copyOf(stages), base, user, Map.copyOf(env), entrypoint, cmd, List.copyOf(last));
  }

  private static List<String> execForm(String json) {
    Object parsed = new Yaml().load(json); // a JSON array is a YAML flow sequence
    return strings(parsed);
  }

  private static List<String> readLines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------- compose

  /** One service of the compose file, as compose would run it. */
  public record Service(
      String name,
      String image,
      boolean punctual,
      List<String> command,
      Map<String, String> environment,
      int replicas,
      Map<String, Object> raw) {}

  /**
   * The services of the compose file in file order, as compose runs them when {@code shell} is the
   * environment of {@code docker compose} (every value interpolated, see {@link #interpolate}).
   * Punctual's own are those built from deploy/Dockerfile or using the image that build produces.
   *
   * @throws IllegalArgumentException what compose says when a required variable ({@code
   *     ${VAR:?message}}) is missing
   */
  public static Map<String, Service> services(Path compose, Map<String, String> shell) {
    Map<String, Object> file = map(interpolateValues(document(compose), shell));
    Set<String> punctualImages = new LinkedHashSet<>();
    for (Map.Entry<String, Object> e : map(file.get("services")).entrySet()) {
      Map<String, Object> service = map(e.getValue());
      if (service.containsKey("build") && service.get("image") != null) {
        punctualImages.add(String.valueOf(service.get("image")));
      }
    }
    Map<String, Service> services = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : map(file.get("services")).entrySet()) {
      Map<String, Object> service = map(e.getValue());
      String image = service.get("image") == null ? null : String.valueOf(service.get("image"));
      boolean punctual = service.containsKey("build") || punctualImages.contains(image);
      Map<String, String> environment = new LinkedHashMap<>();
      Object env = service.get("environment");
      if (env instanceof List<?> entries) {
        for (Object entry : entries) {
          String[] kv = String.valueOf(entry).split("=", 2);
          environment.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
      } else {
        map(env).forEach((k, v) -> environment.put(k, v == null ? "" : String.valueOf(v)));
      }
      Object replicas = at(service, "deploy", "replicas");
      services.put(
          e.getKey(),
          new Service(
              e.getKey(),
              image,
              punctual,
              strings(service.get("command")),
              Map.copyOf(environment),
              replicas == null ? 1 : ((Number) replicas).intValue(),
              service));
    }
    return services;
  }

  /** {@code node} with every string value (not keys) interpolated as compose does. */
  private static Object interpolateValues(Object node, Map<String, String> shell) {
    if (node instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), interpolateValues(v, shell)));
      return out;
    }
    if (node instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(v -> out.add(interpolateValues(v, shell)));
      return out;
    }
    return node instanceof String text ? interpolate(text, shell) : node;
  }

  private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * {@code text} with compose's interpolation applied, {@code shell} being the environment: {@code
   * $$} is a {@code $}; {@code $VAR} and {@code ${VAR}} its value (empty when unset); {@code
   * ${VAR:-default}} / {@code ${VAR-default}} the default when unset or empty / unset; {@code
   * ${VAR:?message}} / {@code ${VAR?message}} an error when unset or empty / unset; {@code
   * ${VAR:+other}} / {@code ${VAR+other}} {@code other} when set and not empty / set.
   *
   * @throws IllegalArgumentException for a required variable that is missing, with compose's
   *     message, or a {@code ${} without its {@code }}
   */
  public static String interpolate(String text, Map<String, String> shell) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c != '$' || i + 1 >= text.length()) {
        out.append(c);
        i++;
        continue;
      }
      char next = text.charAt(i + 1);
      if (next == '$') {
        out.append('$');
        i += 2;
      } else if (next == '{') {
        int close = text.indexOf('}', i + 2);
        if (close < 0) {
          throw new IllegalArgumentException("invalid interpolation format: " + text);
        }
        out.append(expand(text.substring(i + 2, close), shell));
        i = close + 1;
      } else {
        Matcher name = VARIABLE_NAME.matcher(text).region(i + 1, text.length());
        if (name.lookingAt()) {
          out.append(shell.getOrDefault(name.group(), ""));
          i = name.end();
        } else {
          out.append(c);
          i++;
        }
      }
    }
    return out.toString();
  }

  private static String expand(String expression, Map<String, String> shell) {
    Matcher name = VARIABLE_NAME.matcher(expression);
    if (!name.lookingAt()) {
      throw new IllegalArgumentException("invalid interpolation format: ${" + expression + "}");
    }
    String variable = name.group();
    String rest = expression.substring(name.end());
    String value = shell.get(variable);
    boolean set = value != null;
    boolean filled = set && !value.isEmpty();
    if (rest.isEmpty()) {
      return set ? value : "";
    }
    boolean colon = rest.startsWith(":");
    String operation = colon ? rest.substring(1, Math.min(2, rest.length())) : rest.substring(0, 1);
    String argument = rest.substring(colon ? 2 : 1);
    boolean present = colon ? filled : set;
    return switch (operation) {
      case "-" -> present ? value : argument;
      case "+" -> present ? argument : "";
      case "?" -> {
        if (!present) {
          throw new IllegalArgumentException(
              "required variable " + variable + " is missing a value: " + argument);
        }
        yield value;
      }
      default ->
          throw new IllegalArgumentException("invalid interpolation format: ${" + expression + "}");
    };
  }

  // ---------------------------------------------------------------- Kubernetes

  /**
   * A Secret a kustomization's {@code secretGenerator} makes: its name, the env files it reads, and
   * the keys it will hold, read from each env file or, where the operator has not written it (it
   * stays out of git), from the template beside it ({@code <file>.example}).
   */
  public record GeneratedSecret(
      String name, List<Path> envFiles, Set<String> keys, Map<String, Object> entry) {}

  /** The Secrets the {@code secretGenerator} of the kustomization in {@code dir} makes. */
  public static List<GeneratedSecret> generatedSecrets(Path dir) {
    Map<String, Object> kustomization = document(dir.resolve("kustomization.yaml"));
    List<GeneratedSecret> secrets = new ArrayList<>();
    for (Object g : list(kustomization.get("secretGenerator"))) {
      Map<String, Object> generator = map(g);
      List<Path> envFiles = new ArrayList<>();
      Set<String> keys = new LinkedHashSet<>();
      for (String env : strings(generator.get("envs"))) {
        Path file = dir.resolve(env).normalize();
        envFiles.add(file);
        Path read = Files.isRegularFile(file) ? file : Path.of(file + ".example");
        for (String line : readLines(read)) {
          String trimmed = line.strip();
          if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
            keys.add(trimmed.split("=", 2)[0].strip());
          }
        }
      }
      for (String literal : strings(generator.get("literals"))) {
        keys.add(literal.split("=", 2)[0].strip());
      }
      for (String source : strings(generator.get("files"))) {
        keys.add(
            source.contains("=")
                ? source.split("=", 2)[0]
                : Path.of(source).getFileName().toString());
      }
      secrets.add(
          new GeneratedSecret(
              String.valueOf(generator.get("name")),
              List.copyOf(envFiles),
              Set.copyOf(keys),
              generator));
    }
    return secrets;
  }

  /** The resources a kustomization lists (its resources, and those of its components). */
  public static List<Map<String, Object>> resources(Path kustomizationDir) {
    Map<String, Object> kustomization = document(kustomizationDir.resolve("kustomization.yaml"));
    List<Map<String, Object>> resources = new ArrayList<>();
    for (String entry : strings(kustomization.get("resources"))) {
      Path path = kustomizationDir.resolve(entry).normalize();
      if (Files.isDirectory(path)) {
        resources.addAll(resources(path));
      } else {
        resources.addAll(documents(path));
      }
    }
    for (String component : strings(kustomization.get("components"))) {
      resources.addAll(resources(kustomizationDir.resolve(component).normalize()));
    }
    return resources;
  }

  /** A container of a workload, with the pod spec around it. */
  public record Container(
      String kind, String workload, Map<String, Object> container, Map<String, Object> pod) {
    public String name() {
      return String.valueOf(container.get("name"));
    }

    public List<String> args() {
      return strings(container.get("args"));
    }

    @Override
    public String toString() {
      return kind + "/" + workload + " container " + name();
    }
  }

  public static Map<String, Object> podSpec(Map<String, Object> resource) {
    return switch (String.valueOf(resource.get("kind"))) {
      case "Deployment", "StatefulSet", "DaemonSet", "Job" ->
          map(at(resource, "spec", "template", "spec"));
      case "CronJob" -> map(at(resource, "spec", "jobTemplate", "spec", "template", "spec"));
      default -> Map.of();
    };
  }

  public static List<Container> containers(List<Map<String, Object>> resources) {
    List<Container> containers = new ArrayList<>();
    for (Map<String, Object> resource : resources) {
      Map<String, Object> pod = podSpec(resource);
      for (String key : List.of("initContainers", "containers")) {
        for (Object c : list(pod.get(key))) {
          containers.add(
              new Container(
                  String.valueOf(resource.get("kind")),
                  String.valueOf(at(resource, "metadata", "name")),
                  map(c),
                  pod));
        }
      }
    }
    return containers;
  }

  public static Map<String, Object> find(
      List<Map<String, Object>> resources, String kind, String name) {
    return resources.stream()
        .filter(r -> kind.equals(r.get("kind")) && name.equals(at(r, "metadata", "name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + "/" + name));
  }

  // ---------------------------------------------------------------- the launcher

  /**
   * The environment variables the bundled punctual.yml reads ({@code ${VAR}} or {@code ${VAR:-x}}).
   */
  public static Set<String> bundledConfigVariables() {
    Set<String> names = new LinkedHashSet<>();
    try (InputStream in = DeployFiles.class.getClassLoader().getResourceAsStream("punctual.yml")) {
      if (in == null) {
        throw new IllegalStateException("no punctual.yml on the class path");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Matcher m = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?}").matcher(text);
      while (m.find()) {
        names.add(m.group(1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return names;
  }

  /**
   * Parses {@code args} exactly as {@code punctual} would, with the launcher's own commands and
   * their options (Dropwizard's argparse4j set-up, minus the help and version flags); throws on an
   * unknown command, an unknown option or an argument too many.
   */
  public static Namespace parseCommand(List<String> args) throws ArgumentParserException {
    PunctualApplication application = new PunctualApplication();
    Bootstrap<PunctualConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    ArgumentParser parser = ArgumentParsers.newFor("punctual").addHelp(false).build();
    Subparsers subparsers = parser.addSubparsers().dest("command");
    for (Command command : bootstrap.getCommands()) {
      Subparser subparser = subparsers.addParser(command.getName(), false);
      command.configure(subparser);
    }
    return parser.parseArgs(args.toArray(String[]::new));
  }

  /** The names of the launcher's commands. */
  public static List<String> commandNames() {
    PunctualApplication application = new PunctualApplication();
    Bootstrap<PunctualConfiguration> bootstrap = new Bootstrap<>(application);
    application.initialize(bootstrap);
    return bootstrap.getCommands().stream().map(Command::getName).toList();
  }
}
