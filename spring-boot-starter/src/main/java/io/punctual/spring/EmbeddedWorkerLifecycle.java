package io.punctual.spring;

import io.punctual.app.PunctualWorker;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * The embedded worker, started with the application context (after every other bean, in the last
 * phase) and stopped with it first: stopping lets running handlers finish within {@code
 * punctual.worker.shutdown-grace} and hands back the rest (PENDING again at once), so a context's
 * stop leaves no running attempt behind for a reaper to rescue. The worker is built (its
 * connections opened) at start.
 */
public final class EmbeddedWorkerLifecycle implements SmartLifecycle {
  private final Supplier<PunctualWorker> factory;
  private volatile PunctualWorker worker;

  public EmbeddedWorkerLifecycle(Supplier<PunctualWorker> factory) {
    this.factory = factory;
  }

  @Override
  public synchronized void start() {
    if (worker == null) {
      PunctualWorker built = factory.get();
      built.start();
      worker = built;
    }
  }

  @Override
  public synchronized void stop() {
    PunctualWorker running = worker;
    worker = null;
    if (running != null) {
      running.close();
    }
  }

  @Override
  public boolean isRunning() {
    return worker != null;
  }

  /** The worker while it runs (null when stopped). */
  public PunctualWorker worker() {
    return worker;
  }
}
