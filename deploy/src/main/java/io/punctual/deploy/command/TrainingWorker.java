package io.punctual.deploy.command;

import io.punctual.deploy.dev.EmbeddedStores;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The worker process of a training run ({@code dev --train-worker-cache FILE}): {@code punctual
 * worker}, started by dev on dev's embedded PostgreSQL and Redis with dev's own JVM and flags, and
 * {@code -XX:AOTCacheOutput=FILE}, so that the cache it writes at its exit holds what a worker
 * alone loaded and profiled. A worker process started from dev's cache would start from profiles
 * that dev's API, planner and reaper shared with it: the call sites they have in common (JDBI,
 * Jackson, the Redis client) seen with every caller's types, compiled for all of them.
 */
final class TrainingWorker implements AutoCloseable {
  private static final Duration EXIT_WAIT = Duration.ofMinutes(2);

  private final Process process;
  private final Path cache;

  private TrainingWorker(Process process, Path cache) {
    this.process = process;
    this.cache = cache;
  }

  /**
   * Starts the worker on {@code stores} (user {@link EmbeddedStores#USER}, no password), its output
   * to {@code log}; {@code secretsKey} is dev's key for the signing secrets it seals.
   */
  static TrainingWorker start(Path cache, EmbeddedStores stores, String secretsKey, Path log)
      throws IOException {
    Files.deleteIfExists(cache);
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse(javaOfThisProcess()));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // Dev's flags, as the launcher gave them (a cache is used with the same), but its own cache
      // and a debugger's port.
      if (!flag.startsWith("-XX:AOT") && !flag.startsWith("-agentlib:jdwp")) {
        cmd.add(flag);
      }
    }
    cmd.add("-XX:AOTCacheOutput=" + cache);
    cmd.add("-jar");
    cmd.add(jar().toString());
    cmd.add("worker");
    ProcessBuilder builder = new ProcessBuilder(cmd);
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(k -> k.startsWith("PUNCTUAL_"));
    env.put("PUNCTUAL_DATABASE_URL", stores.jdbcUrl());
    env.put("PUNCTUAL_DATABASE_USER", EmbeddedStores.USER);
    env.put("PUNCTUAL_REDIS_URL", stores.redisUrl());
    env.put("PUNCTUAL_ADMIN_PORT", "0");
    if (secretsKey != null) {
      env.put("PUNCTUAL_SECRETS_KEY", secretsKey);
    }
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    Process process = builder.start();
    // Dev stopped by a signal or a failure before the run ended: no worker left behind.
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(process::destroyForcibly));
    return new TrainingWorker(process, cache);
  }

  /**
   * Stops the worker as a SIGTERM does (it finishes what it runs, then the JVM writes the cache)
   * and waits for it; true when it exited with status 0 and the cache is written.
   */
  boolean finish() throws InterruptedException, IOException {
    process.destroy();
    if (!process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      return false;
    }
    return process.exitValue() == 0 && Files.isRegularFile(cache) && Files.size(cache) > 0;
  }

  /** Whether the worker stopped before it was asked to (a configuration it refused, a crash). */
  boolean exited() {
    return !process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  /** The jar this process runs (the training worker runs the same one). */
  private static Path jar() throws IOException {
    try {
      return Path.of(
          TrainingWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException("where is punctual.jar? " + e.getMessage(), e);
    }
  }

  private static String javaOfThisProcess() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
