package io.punctual.worker.heartbeat;

import io.punctual.queue.liveness.WorkerLiveness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.metrics.WorkerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker in the live-workers set ({@link WorkerLiveness}) every {@code
 * worker.livenessInterval}, on a thread of its own that talks to Redis only: neither a slow
 * PostgreSQL nor a heartbeat stuck on it holds it up. When the process dies, its entry passes its
 * deadline {@code worker.livenessTtl} later and a reaper rescues its attempts at once.
 */
public final class LivenessBeacon {
  private static final Logger log = LoggerFactory.getLogger(LivenessBeacon.class);

  private final WorkerLiveness liveness;
  private final WorkerSettings settings;
  private final WorkerMetrics metrics;
  private volatile boolean failing;

  public LivenessBeacon(WorkerLiveness liveness, WorkerSettings settings, WorkerMetrics metrics) {
    this.liveness = liveness;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** One renewal; false (logged once per outage, counted) when Redis did not take it. */
  public boolean runOnce() {
    try {
      liveness.renew(settings.workerId, settings.livenessTtl);
      if (failing) {
        failing = false;
        log.info("reporting alive again worker={}", settings.workerId);
      }
      return true;
    } catch (RuntimeException e) {
      metrics.livenessFailures.mark();
      if (!failing) {
        failing = true;
        log.warn(
            "could not report alive in Redis worker={}: {} (past worker.livenessTtl, a reaper may"
                + " rescue this worker's attempts; their late results are then refused)",
            settings.workerId,
            e.toString());
      }
      return false;
    }
  }

  /**
   * Leaves the set: the worker stopped and none of its attempts is left running, so there is
   * nothing for a reaper to rescue. A worker stopping with attempts still running stays, and its
   * entry's deadline passing gets them rescued within seconds.
   */
  public void leave() {
    try {
      liveness.leave(settings.workerId, settings.livenessTtl);
    } catch (RuntimeException e) {
      log.debug("could not leave the live-workers set worker={}", settings.workerId, e);
    }
  }
}
