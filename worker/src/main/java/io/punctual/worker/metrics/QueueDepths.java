package io.punctual.worker.metrics;

import io.punctual.common.job.Priority;
import io.punctual.common.queue.ReadyQueue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The due and not-yet-due sizes of each namespace and priority a worker serves in the Redis queue,
 * read by {@link #runOnce()} (the worker runs it every {@link #INTERVAL} on a thread of its own)
 * and kept: the gauges read the kept values, so a scrape makes no Redis call and its readings are
 * at most one interval (plus one pass) old. -1 before the first pass, and after a pass in which
 * Redis did not answer for that queue.
 */
public final class QueueDepths {
  public static final Duration INTERVAL = Duration.ofSeconds(1);

  private final ReadyQueue queue;
  private final Clock clock;
  private final List<Reading> readings = new ArrayList<>();

  public QueueDepths(ReadyQueue queue, List<String> namespaces, Clock clock) {
    this.queue = queue;
    this.clock = clock;
    for (String ns : namespaces) {
      for (Priority p : Priority.values()) {
        readings.add(new Reading(ns, p));
      }
    }
  }

  /** The queues read, one per namespace and priority. */
  public List<Reading> readings() {
    return readings;
  }

  /** Reads every queue's sizes once (two Redis calls per queue and shard). */
  public void runOnce() {
    Instant now = clock.instant();
    for (Reading r : readings) {
      long[] value;
      try {
        long due = queue.dueCount(r.namespace, r.priority, now);
        long all = queue.size(r.namespace, r.priority);
        value = new long[] {due, Math.max(0, all - due)};
      } catch (RuntimeException e) {
        value = new long[] {-1, -1};
      }
      r.value = value;
    }
  }

  /** One namespace and priority: its last reading. */
  public static final class Reading {
    private final String namespace;
    private final Priority priority;
    private volatile long[] value = {-1, -1};

    Reading(String namespace, Priority priority) {
      this.namespace = namespace;
      this.priority = priority;
    }

    public String namespace() {
      return namespace;
    }

    public Priority priority() {
      return priority;
    }

    /** Jobs due now, as last read. */
    public long due() {
      return value[0];
    }

    /** Jobs due later (within the promotion horizon), as last read. */
    public long future() {
      return value[1];
    }

    /** All queued jobs, as last read; -1 when that reading failed. */
    public long size() {
      long[] v = value;
      return v[0] < 0 ? -1 : v[0] + v[1];
    }
  }
}
