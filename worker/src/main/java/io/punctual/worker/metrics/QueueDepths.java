package io.punctual.worker.metrics;

import io.punctual.model.Priority;
import io.punctual.queue.ReadyQueue;
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
 *
 * <p>Read only while someone looks: after the first pass, a pass reads Redis only if a gauge was
 * read in the last {@link #IDLE_AFTER} (any scrape interval is shorter), so a fleet nobody scrapes
 * makes no Redis calls for its gauges (two per namespace, priority and shard a second per worker
 * otherwise). The first scrape after such a pause shows the values of the last pass before it; the
 * pass after that scrape (within a second) reads them anew.
 */
public final class QueueDepths {
  public static final Duration INTERVAL = Duration.ofSeconds(1);

  /** How long after the last read of a gauge passes go on reading Redis. */
  public static final Duration IDLE_AFTER = Duration.ofMinutes(5);

  private final ReadyQueue queue;
  private final Clock clock;
  private final List<Reading> readings = new ArrayList<>();
  private volatile Instant lastAsked;
  private volatile boolean passed;

  public QueueDepths(ReadyQueue queue, List<String> namespaces, Clock clock) {
    this.queue = queue;
    this.clock = clock;
    for (String ns : namespaces) {
      for (Priority p : Priority.values()) {
        readings.add(new Reading(this, ns, p));
      }
    }
  }

  /** The queues read, one per namespace and priority. */
  public List<Reading> readings() {
    return readings;
  }

  /**
   * Reads every queue's sizes once (two Redis calls per queue and shard): the first time, and then
   * while a gauge was read in the last {@link #IDLE_AFTER}. Returns whether it read.
   */
  public boolean runOnce() {
    Instant now = clock.instant();
    Instant asked = lastAsked;
    if (passed && (asked == null || asked.isBefore(now.minus(IDLE_AFTER)))) {
      return false;
    }
    passed = true;
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
    return true;
  }

  private void asked() {
    lastAsked = clock.instant();
  }

  /** One namespace and priority: its last reading. */
  public static final class Reading {
    private final QueueDepths owner;
    private final String namespace;
    private final Priority priority;
    private volatile long[] value = {-1, -1};

    Reading(QueueDepths owner, String namespace, Priority priority) {
      this.owner = owner;
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
      owner.asked();
      return value[0];
    }

    /** Jobs due later (within the promotion horizon), as last read. */
    public long future() {
      owner.asked();
      return value[1];
    }

    /** All queued jobs, as last read; -1 when that reading failed. */
    public long size() {
      owner.asked();
      long[] v = value;
      return v[0] < 0 ? -1 : v[0] + v[1];
    }
  }
}
