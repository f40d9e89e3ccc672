package io.punctual.api.bulk;

import io.dropwizard.lifecycle.Managed;
import io.punctual.api.jobs.JobActions;
import io.punctual.common.store.JobTransitions.CancelResult;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works through accepted bulk actions in the background of the API process that accepted them,
 * batch by batch, recording progress after each ({@link BulkActionStore}). An action whose process
 * stops midway stays {@code running} with the jobs not yet taken on its list: nothing resumes it.
 */
public final class BulkRunner implements Managed {
  private static final Logger log = LoggerFactory.getLogger(BulkRunner.class);

  private final BulkActionStore store;
  private final JobActions actions;
  private final int batchSize;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("punctual-bulk-", 0).factory());

  public BulkRunner(BulkActionStore store, JobActions actions, int batchSize) {
    this.store = store;
    this.actions = actions;
    this.batchSize = batchSize;
  }

  /** Starts action {@code id} in the background. */
  public void start(UUID id, String namespace, String action) {
    // Its end is recorded in bulk_actions (runOnce catches everything), not read from the future.
    Future<?> unused = executor.submit(() -> runOnce(id, namespace, action));
  }

  /** Works through action {@code id} to its end, in the calling thread. */
  public void runOnce(UUID id, String namespace, String action) {
    int done = 0;
    int failed = 0;
    try {
      while (true) {
        List<UUID> batch = store.nextBatch(id, batchSize);
        if (batch.isEmpty()) {
          break;
        }
        int changed = act(namespace, action, batch);
        store.progress(id, changed, batch.size() - changed);
        done += changed;
        failed += batch.size() - changed;
      }
      store.finish(id, null);
      log.info(
          "bulk action done bulk={} namespace={} action={} done={} failed={}",
          id,
          namespace,
          action,
          done,
          failed);
    } catch (RuntimeException e) {
      log.warn(
          "bulk action failed bulk={} namespace={} action={} after done={}: {}",
          id,
          namespace,
          action,
          done,
          e.toString());
      try {
        store.finish(id, "stopped: " + e.getClass().getSimpleName());
      } catch (RuntimeException again) {
        log.warn("bulk action state not written bulk={}: {}", id, again.toString());
      }
    }
  }

  /** Acts on one batch; returns how many of its jobs changed. */
  private int act(String namespace, String action, List<UUID> ids) {
    if (action.equals(BulkRequest.RETRY)) {
      return actions.retryAll(namespace, ids).size();
    }
    int cancelled = 0;
    for (UUID id : ids) {
      if (actions.cancel(namespace, id) instanceof CancelResult.Cancelled) {
        cancelled++;
      }
    }
    return cancelled;
  }

  @Override
  public void stop() throws InterruptedException {
    executor.shutdownNow();
    if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
      log.warn("bulk actions still running at shutdown stay 'running'");
    }
  }
}
