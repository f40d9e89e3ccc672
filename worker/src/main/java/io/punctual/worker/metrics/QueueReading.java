package io.punctual.worker.metrics;

import com.codahale.metrics.CachedGauge;
import io.punctual.common.job.Priority;
import io.punctual.common.queue.ReadyQueue;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The due and not-yet-due sizes of one namespace and priority in the Redis queue, read together at
 * most once a second (a scrape then costs no Redis round trip); -1 when Redis did not answer.
 */
final class QueueReading {
  private final CachedGauge<long[]> reading;

  QueueReading(ReadyQueue queue, String namespace, Priority priority, Clock clock) {
    this.reading =
        new CachedGauge<>(1, TimeUnit.SECONDS) {
          @Override
          protected long[] loadValue() {
            try {
              long due = queue.dueCount(namespace, priority, clock.instant());
              long all = queue.size(namespace, priority);
              return new long[] {due, Math.max(0, all - due)};
            } catch (RuntimeException e) {
              return new long[] {-1, -1};
            }
          }
        };
  }

  long due() {
    return reading.getValue()[0];
  }

  long future() {
    return reading.getValue()[1];
  }
}
