package io.punctual.deploy.runtime;

import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns SIGTERM and SIGINT (Ctrl-C) into an orderly stop: the HTTP server stops, which stops the
 * managed parts in reverse order of start (worker first, then the stores, then the embedded
 * servers), then anything left in {@link Resources} is closed and the JVM exits with status 0.
 *
 * <p>Without this, the JVM would run every shutdown hook at once, and the hooks the embedded
 * PostgreSQL and Redis install would stop them while the worker is still writing its last results.
 */
public final class GracefulShutdown {
  private static final Logger log = LoggerFactory.getLogger(GracefulShutdown.class);

  private final Resources resources;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile Server server;

  public GracefulShutdown(Resources resources) {
    this.resources = resources;
  }

  /** Installs the handlers; call before opening anything. */
  public void install() {
    for (String signal : new String[] {"TERM", "INT"}) {
      Signals.handle(signal, () -> onSignal("SIG" + signal + " received", 0));
    }
  }

  /** The server whose stop drives the orderly stop (set once it has started). */
  public void serverStarted(Server started) {
    this.server = started;
  }

  /**
   * Stops as a SIGTERM would, for a process that decides itself that it is done ({@code dev
   * --train-jobs}); {@code reason} is logged, and the process exits with {@code status} (or 1 if
   * the stop itself fails).
   */
  public void stopNow(String reason, int status) {
    onSignal(reason, status);
  }

  private void onSignal(String why, int status) {
    if (!stopping.compareAndSet(false, true)) {
      log.info("already stopping ({}); waiting for running jobs to finish", why);
      return;
    }
    Thread.ofPlatform().name("punctual-shutdown").start(() -> stop(why, status));
  }

  private void stop(String why, int exitStatus) {
    log.info("{}, stopping", why);
    int status = exitStatus;
    Server running = server;
    if (running != null) {
      try {
        running.stop();
      } catch (Exception e) {
        log.error("stopping the server failed", e);
        status = Math.max(status, 1);
      }
    }
    resources.closeAll();
    log.info("stopped");
    System.exit(status);
  }
}
