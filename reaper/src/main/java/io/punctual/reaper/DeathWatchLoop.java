package io.punctual.reaper;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.loop.Loops;
import io.punctual.queue.Stores;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link DeathWatch} on a thread of its own, every {@code reaper.deathCheckInterval}: what every
 * {@code punctual worker} process runs beside its worker, so that the workers of a deployment
 * rescue each other's attempts within seconds even where the reaper runs only as a periodic job
 * ({@code reaper --once}, the Kubernetes CronJob). Any number of them may run: the rescue is
 * guarded, and one that finds a worker already buried does nothing.
 */
public final class DeathWatchLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeathWatchLoop.class);

  private final DeathWatch watch;
  private final ReaperSettings settings;
  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("punctual-death-watch").factory());

  public DeathWatchLoop(Stores stores, ReaperSettings settings, MetricRegistry metrics) {
    settings.validate();
    this.settings = settings;
    this.watch = Reaper.deathWatch(stores, settings, metrics);
  }

  public void start() {
    long nanos = settings.deathCheckInterval.toNanos();
    // The executor's shutdown cancels it; each run logs its own failure.
    ScheduledFuture<?> unused =
        executor.scheduleWithFixedDelay(this::runOnce, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** One pass; a failure (Redis or PostgreSQL down) is logged and the next pass tries again. */
  public int runOnce() {
    try {
      return watch.runOnce();
    } catch (RuntimeException e) {
      log.warn("death watch pass failed: {}", e.toString());
      return 0;
    }
  }

  @Override
  public void close() {
    Loops.stopNow(executor);
  }
}
