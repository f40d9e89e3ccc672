package io.punctual.deploy.dev;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops servers a previous {@code punctual dev} left running in its data directory (it was killed
 * with SIGKILL, or crashed): they would hold the PostgreSQL data directory and Redis' append-only
 * file. Only called while holding the directory's {@link DataDirLock}, so their owner is gone.
 */
final class LeftoverProcesses {
  private static final Logger log = LoggerFactory.getLogger(LeftoverProcesses.class);
  private static final long WAIT_SECONDS = 30;

  private LeftoverProcesses() {}

  /** The postmaster of {@code postgresDir}, from the first line of its postmaster.pid. */
  static void stopPostgres(Path postgresDir) {
    stop(readPid(postgresDir.resolve("postmaster.pid")), "postgres");
  }

  /** The redis-server whose pid {@link EmbeddedStores} wrote to {@code pidFile}. */
  static void stopRedis(Path pidFile) {
    stop(readPid(pidFile), "redis-server");
  }

  static Optional<Long> readPid(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static void stop(Optional<Long> pid, String expectedCommand) {
    if (pid.isEmpty()) {
      return;
    }
    Optional<ProcessHandle> process = ProcessHandle.of(pid.get());
    if (process.isEmpty() || !process.get().isAlive()) {
      return;
    }
    String command = process.get().info().command().orElse("");
    if (!command.contains(expectedCommand)) {
      return; // the pid was reused by an unrelated process
    }
    log.warn(
        "stopping {} (pid {}) left running by an earlier punctual dev", expectedCommand, pid.get());
    process.get().destroy();
    if (!awaitGone(process.get(), WAIT_SECONDS)) {
      log.warn("{} (pid {}) ignored SIGTERM; killing it", expectedCommand, pid.get());
      process.get().destroyForcibly();
      awaitGone(process.get(), 5);
    }
  }

  /**
   * Waits until the process has exited. A zombie counts as exited: an orphan that exits stays one
   * until pid 1 reaps it, which some containers' pid 1 never does.
   */
  private static boolean awaitGone(ProcessHandle process, long seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive() || isZombie(process.pid())) {
        return true;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private static boolean isZombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      int end = stat.lastIndexOf(')');
      char state = stat.charAt(end + 2);
      return state == 'Z' || state == 'X';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
