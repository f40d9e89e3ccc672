package io.punctual.deploy.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar target/punctual.jar <args>} as a separate OS process, its output in a log file.
 * {@link #close()} always ends it and everything it started.
 */
final class PunctualProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path log;
  private final List<ProcessHandle> seenDescendants = new ArrayList<>();

  private PunctualProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * The admin key every process gets as {@code PUNCTUAL_BOOTSTRAP_KEY} unless its {@code env} sets
   * that variable (to "" for none).
   */
  static final String BOOTSTRAP_KEY = "e2e-admin-key-0123456789abcdefghijklmnopqrstuvwxyz";

  /**
   * The secrets key every process gets as {@code PUNCTUAL_SECRETS_KEY} unless its {@code env} sets
   * that variable: the base64 of 32 bytes.
   */
  static final String SECRETS_KEY = "ZTJlIHRlc3RzJyBzZWNyZXRzIGtleSwgMzIgYnl0ZXM=";

  /**
   * Starts the jar with a clean set of PUNCTUAL_* variables (only those in {@code env}, and {@link
   * #BOOTSTRAP_KEY} and {@link #SECRETS_KEY}).
   */
  static PunctualProcess start(Path log, Map<String, String> env, String... args) {
    return startCommand(log, env, javaCommand(args));
  }

  /**
   * Starts the jar as {@link #start}, with {@code env} and then {@code extra} as its variables and
   * {@code config} as the command's last argument: one role of a test's fleet.
   */
  static PunctualProcess startRole(
      Path log, Map<String, String> env, Map<String, String> extra, Path config, String... args) {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.putAll(extra);
    String[] withConfig = java.util.Arrays.copyOf(args, args.length + 1);
    withConfig[args.length] = config.toString();
    return start(log, all, withConfig);
  }

  /** {@code java -jar punctual.jar <args>}, the command {@link #start} runs. */
  static List<String> javaCommand(String... args) {
    String jar = System.getProperty("punctual.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("no runnable jar at punctual.jar=" + jar + "; run `package`");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.add("-Xmx512m");
    command.add("-jar");
    command.add(jar);
    command.addAll(List.of(args));
    return command;
  }

  /**
   * Starts {@code command} (e.g. the {@code ./punctual} launcher) as {@link #start} starts the jar.
   */
  static PunctualProcess startCommand(Path log, Map<String, String> env, List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(k -> k.startsWith("PUNCTUAL_"));
    builder.environment().put("PUNCTUAL_BOOTSTRAP_KEY", BOOTSTRAP_KEY);
    builder.environment().put("PUNCTUAL_SECRETS_KEY", SECRETS_KEY);
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    try {
      return new PunctualProcess(builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a command to its end (bounded) and returns its exit status. */
  static int run(Path log, Map<String, String> env, Duration timeout, String... args) {
    try (PunctualProcess p = start(log, env, args)) {
      return p.awaitExit(timeout);
    }
  }

  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits for a line of output matching {@code regex}; returns its first group. */
  String awaitOutput(String regex, Duration timeout) {
    Pattern pattern = Pattern.compile(regex, Pattern.MULTILINE);
    String[] found = new String[1];
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(100))
        .failFast("process exited:\n" + tail(), () -> !process.isAlive())
        .until(
            () -> {
              Matcher m = pattern.matcher(output());
              if (m.find()) {
                found[0] = m.groupCount() > 0 ? m.group(1) : m.group();
                return true;
              }
              return false;
            });
    return found[0];
  }

  /** Waits until {@code GET url} answers 200. */
  void awaitHealthy(String url, Duration timeout) {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .failFast("process exited:\n" + tail(), () -> !process.isAlive())
        .until(() -> status(url) == 200);
    rememberDescendants();
  }

  static int status(String url) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build();
      return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Remembers the servers the process started, so {@link #close()} can end them if it must. */
  void rememberDescendants() {
    process.descendants().forEach(seenDescendants::add);
  }

  List<ProcessHandle> descendants() {
    return List.copyOf(seenDescendants);
  }

  /** Sends SIGTERM and waits for the exit status. */
  int stop(Duration timeout) {
    process.destroy();
    return awaitExit(timeout);
  }

  long pid() {
    return process.pid();
  }

  /** Sends a signal by name ({@code STOP}, {@code CONT}, ...) with the system's kill command. */
  void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** SIGKILL: the process gets no chance to stop what it started. */
  void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(30));
  }

  int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("did not exit within " + timeout + ":\n" + tail());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String tail() {
    String out = output();
    return out.length() <= 6000 ? out : out.substring(out.length() - 6000);
  }

  @Override
  public void close() {
    rememberDescendantsQuietly();
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
    for (ProcessHandle child : seenDescendants) {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    }
  }

  private void rememberDescendantsQuietly() {
    try {
      rememberDescendants();
    } catch (RuntimeException ignored) {
      // the process may be gone already
    }
  }
}
