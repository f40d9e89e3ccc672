package io.punctual.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the tests run in a JVM of its own (the tests' class path), so that a test can
 * kill it with {@code SIGKILL}. Its output is read on a thread of its own (so it never blocks on a
 * full pipe) and echoed with a prefix.
 */
final class JavaProcess implements AutoCloseable {
  private final Process process;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();

  private JavaProcess(Process process, String readyLine, String name) {
    this.process = process;
    Thread.ofPlatform()
        .daemon()
        .name(name + "-output")
        .start(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.startsWith(readyLine)) {
                    ready.complete(null);
                  } else if (line.contains("ERROR") || line.contains("Exception")) {
                    System.out.println("[" + name + "] " + line);
                  }
                }
              } catch (IOException e) {
                // the process is gone
              }
              ready.completeExceptionally(new IllegalStateException(name + " ended before ready"));
            });
  }

  /** Starts {@code main} with {@code args} and waits for it to print {@code readyLine}. */
  static JavaProcess start(Class<?> main, String readyLine, Duration timeout, String... args)
      throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(List.of("-Xmx256m", "-cp", classPath, main.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    JavaProcess jp = new JavaProcess(p, readyLine, main.getSimpleName());
    try {
      jp.ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      jp.close();
      throw e;
    }
    return jp;
  }

  /** Waits for it to end by itself; returns its exit status. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("still running after " + timeout);
    }
    return process.exitValue();
  }

  /** {@code kill -9}: nothing more runs in it. Returns its exit status (137). */
  int kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("not dead after SIGKILL");
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
