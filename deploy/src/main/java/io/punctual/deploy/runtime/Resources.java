package io.punctual.deploy.runtime;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a command has opened, in order, so it is closed in reverse order exactly once: by the
 * server's lifecycle on a normal stop (Jetty stops managed objects in reverse order), or by {@link
 * #closeAll()} when start-up fails half-way or the process is asked to stop before the server ran.
 */
public final class Resources {
  private static final Logger log = LoggerFactory.getLogger(Resources.class);

  /** A close action that may throw. */
  @FunctionalInterface
  public interface Closer {
    void close() throws Exception;
  }

  private final Deque<Once> opened = new ArrayDeque<>();

  /**
   * Remembers {@code closer} and, with an environment, ties it to the server's lifecycle: its
   * {@code stop()} runs the close action.
   */
  public synchronized void add(String name, Closer closer, Environment environment) {
    Once once = new Once(name, closer);
    opened.push(once);
    if (environment != null) {
      environment.lifecycle().manage(once);
    }
  }

  public void add(String name, Closer closer) {
    add(name, closer, null);
  }

  /**
   * Ties a start and a stop action to the server's lifecycle (started with the server, stopped
   * before everything added earlier) and to {@link #closeAll()}.
   */
  public synchronized void addStarted(
      String name, Runnable start, Closer stop, Environment environment) {
    Once once =
        new Once(name, stop) {
          @Override
          public void start() {
            start.run();
          }
        };
    opened.push(once);
    environment.lifecycle().manage(once);
  }

  /** Closes everything not closed yet, last opened first; failures are logged, not thrown. */
  public void closeAll() {
    while (true) {
      Once next;
      synchronized (this) {
        next = opened.poll();
      }
      if (next == null) {
        return;
      }
      next.stop();
    }
  }

  private static class Once implements Managed {
    private final String name;
    private final Closer closer;
    private final AtomicBoolean closed = new AtomicBoolean();

    Once(String name, Closer closer) {
      this.name = name;
      this.closer = closer;
    }

    @Override
    public void start() {}

    @Override
    public void stop() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      try {
        closer.close();
        log.debug("closed {}", name);
      } catch (Exception e) {
        log.warn("closing {} failed: {}", name, e.toString(), e);
      }
    }
  }
}
