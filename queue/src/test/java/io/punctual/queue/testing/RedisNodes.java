package io.punctual.queue.testing;

import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.embedded.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * N independent Redis servers on free loopback ports, as Redlock's lock nodes: each one its own
 * process (the system's {@code redis-server}, standalone, no persistence, a temporary directory of
 * its own), which a test can kill with SIGKILL, restart empty on the same port, and stop. Where no
 * {@code redis-server} binary is installed ({@code PUNCTUAL_TEST_REDIS_SERVER} names another), the
 * embedded one is used, and a kill is its stop (not a SIGKILL). Never touches a Redis it did not
 * start.
 */
public final class RedisNodes implements AutoCloseable {
  private static final String BINARY =
      System.getenv().getOrDefault("PUNCTUAL_TEST_REDIS_SERVER", "/usr/bin/redis-server");

  private final int[] ports;
  private final Path dir;
  private final Process[] processes;
  private final EmbeddedRedisServer[] embedded;

  private RedisNodes(int n) {
    this.ports = new int[n];
    this.processes = new Process[n];
    this.embedded = new EmbeddedRedisServer[n];
    try {
      this.dir = Files.createTempDirectory("punctual-lock-nodes");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts {@code n} nodes. */
  public static RedisNodes start(int n) {
    RedisNodes nodes = new RedisNodes(n);
    try {
      for (int i = 0; i < n; i++) {
        nodes.ports[i] = FreePorts.pick();
        nodes.startNode(i);
      }
    } catch (RuntimeException e) {
      nodes.close();
      throw e;
    }
    return nodes;
  }

  /** Whether the nodes are processes of the system's binary (kills are SIGKILLs). */
  public static boolean systemBinary() {
    return Files.isExecutable(Path.of(BINARY));
  }

  public int size() {
    return ports.length;
  }

  public String url(int i) {
    return "redis://127.0.0.1:" + ports[i];
  }

  public List<String> urls() {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < ports.length; i++) {
      urls.add(url(i));
    }
    return urls;
  }

  /** SIGKILL to node {@code i} (no shutdown, nothing saved); returns once it is gone. */
  public void kill(int i) {
    if (processes[i] != null) {
      processes[i].destroyForcibly();
      try {
        processes[i].onExit().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("redis-server on port " + ports[i] + " did not die", e);
      }
      processes[i] = null;
    }
    if (embedded[i] != null) {
      embedded[i].close();
      embedded[i] = null;
    }
  }

  /** Kills node {@code i} if it runs and starts it again, empty, on the same port. */
  public void restartEmpty(int i) {
    kill(i);
    startNode(i);
  }

  /** Starts node {@code i} (stopped by {@link #kill}) again, empty, on its port. */
  public void startAgain(int i) {
    if (processes[i] == null && embedded[i] == null) {
      startNode(i);
    }
  }

  private void startNode(int i) {
    if (!systemBinary()) {
      embedded[i] = EmbeddedRedisServer.start(null, ports[i]);
      return;
    }
    try {
      Path nodeDir = Files.createDirectories(dir.resolve("node-" + i));
      Process p =
          new ProcessBuilder(
                  BINARY,
                  "--port",
                  Integer.toString(ports[i]),
                  "--bind",
                  "127.0.0.1",
                  "--cluster-enabled",
                  "no",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--dir",
                  nodeDir.toString(),
                  "--daemonize",
                  "no",
                  "--enable-debug-command",
                  "local",
                  "--loglevel",
                  "notice")
              .redirectErrorStream(true)
              .start();
      processes[i] = p;
      awaitReady(p, ports[i]);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + BINARY, e);
    }
  }

  /** Reads the server's log until it says it accepts connections (then drains it). */
  private static void awaitReady(Process p, int port) {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Void> ready = new CompletableFuture<>();
    StringBuilder log = new StringBuilder();
    Thread reader =
        new Thread(
            () -> {
              try {
                String line;
                while ((line = out.readLine()) != null) {
                  if (!ready.isDone()) {
                    log.append(line).append('\n');
                    if (line.contains("Ready to accept connections")) {
                      ready.complete(null);
                    }
                  }
                }
              } catch (IOException e) {
                // the process is gone
              }
              ready.completeExceptionally(new IllegalStateException("exited:\n" + log));
            },
            "redis-node-" + port);
    reader.setDaemon(true);
    reader.start();
    try {
      ready.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IllegalStateException("redis-server on port " + port + " did not start", e);
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < ports.length; i++) {
      try {
        kill(i);
      } catch (RuntimeException e) {
        // keep stopping the others
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }
}
