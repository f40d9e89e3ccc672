package io.punctual.api.audit;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.lifecycle.Managed;
import io.punctual.store.AuditStore;
import io.punctual.store.AuditStore.Entry;
import io.punctual.store.config.AuditSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log's recorder: {@link #record} puts an entry in a bounded buffer (the request waits
 * for room when it is full: an entry is never dropped), and one background writer stores what the
 * buffer holds every {@code audit.flushInterval}, in INSERTs of up to {@code audit.maxBatch} rows.
 * A writer that cannot store a batch keeps it and tries again, backing off up to {@link
 * #MAX_BACKOFF}; meanwhile the buffer fills, and then requests wait. {@link #stop} stores what is
 * left. What a crash of the process loses: the entries of the last flush interval or so (and, while
 * PostgreSQL is away, what is buffered).
 *
 * <p>Metrics: {@code punctual.audit.buffered} (entries not stored yet), {@code
 * punctual.audit.written}, {@code punctual.audit.writeFailures} (failed INSERTs, each retried) and
 * {@code punctual.audit.waitedForRoom} (requests that found the buffer full).
 */
public final class AuditLog implements Managed {
  private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  private static final int MAX_TEXT = 500;

  private final AuditStore store;
  private final Clock clock;
  private final AuditSettings settings;
  private final BlockingQueue<Entry> buffer;
  private final List<Entry> pending = new ArrayList<>();
  private final Meter written;
  private final Meter failures;
  private final Meter waited;
  private volatile boolean running;
  private volatile boolean stopped;
  private volatile int pendingCount;
  private Thread writer;

  public AuditLog(AuditStore store, Clock clock, AuditSettings settings, MetricRegistry metrics) {
    settings.validate();
    this.store = store;
    this.clock = clock;
    this.settings = settings;
    this.buffer = new ArrayBlockingQueue<>(settings.bufferSize);
    this.written = metrics.meter("punctual.audit.written");
    this.failures = metrics.meter("punctual.audit.writeFailures");
    this.waited = metrics.meter("punctual.audit.waitedForRoom");
    metrics.gauge(
        "punctual.audit.buffered", () -> (Gauge<Integer>) () -> buffer.size() + pendingCount);
  }

  /**
   * Records one answered request, at the clock's current time. {@code actor} null: the sender is
   * not known. {@code problem}: the problem type of a refusal, else null. Waits while the buffer is
   * full. Texts are stored as given, but cut to 500 characters and with any character PostgreSQL
   * cannot store (NUL, a lone surrogate) replaced by U+FFFD.
   */
  public void record(
      Actor actor, String action, String target, int status, String problem, String requestId) {
    Entry entry =
        new Entry(
            clock.instant(),
            text(requestId),
            actor == null ? null : actor.keyId(),
            actor == null ? null : text(actor.keyName()),
            actor == null ? null : text(actor.namespace()),
            text(action),
            text(target),
            status,
            text(problem));
    if (stopped) {
      writeNow(entry); // after stop nobody drains the buffer
      return;
    }
    if (buffer.offer(entry)) {
      return;
    }
    waited.mark();
    boolean interrupted = false;
    while (true) {
      try {
        buffer.put(entry);
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the entry is not given up: wait on, and keep the interrupt
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void writeNow(Entry entry) {
    try {
      store.insert(List.of(entry));
      written.mark();
    } catch (RuntimeException e) {
      failures.mark();
      log.error(
          "audit entry lost after shutdown: {} {}: {}",
          entry.action(),
          entry.target(),
          e.toString());
    }
  }

  /**
   * Stores every entry buffered now (a batch that failed before first); returns how many. Throws
   * when PostgreSQL refuses, keeping the entries not stored for the next call.
   */
  public synchronized int runOnce() {
    int total = 0;
    while (true) {
      if (pending.isEmpty()) {
        buffer.drainTo(pending, settings.maxBatch);
        pendingCount = pending.size();
      }
      if (pending.isEmpty()) {
        return total;
      }
      try {
        store.insert(pending);
      } catch (RuntimeException e) {
        failures.mark();
        throw e;
      }
      total += pending.size();
      written.mark(pending.size());
      pending.clear();
      pendingCount = 0;
    }
  }

  @Override
  public synchronized void start() {
    if (writer != null) {
      throw new IllegalStateException("already started");
    }
    running = true;
    stopped = false;
    writer = Thread.ofPlatform().daemon().name("punctual-audit-writer").start(this::loop);
  }

  private void loop() {
    long waitNanos = settings.flushInterval.toNanos();
    while (running) {
      try {
        TimeUnit.NANOSECONDS.sleep(waitNanos);
      } catch (InterruptedException e) {
        return; // stop() stores what is left
      }
      try {
        runOnce();
        waitNanos = settings.flushInterval.toNanos();
      } catch (RuntimeException e) {
        waitNanos = Math.min(waitNanos * 2, MAX_BACKOFF.toNanos());
        log.warn(
            "audit entries not stored ({} waiting), trying again in {} ms: {}",
            buffer.size() + pendingCount,
            TimeUnit.NANOSECONDS.toMillis(waitNanos),
            e.toString());
      }
    }
  }

  /**
   * Stops the writer and stores what is buffered (trying for a few seconds if PostgreSQL fails).
   */
  @Override
  public void stop() throws InterruptedException {
    Thread thread;
    synchronized (this) {
      thread = writer;
      writer = null;
      running = false;
    }
    if (thread != null) {
      thread.interrupt();
      thread.join(TimeUnit.SECONDS.toMillis(10));
    }
    stopped = true;
    for (int attempt = 1; ; attempt++) {
      try {
        runOnce();
        return;
      } catch (RuntimeException e) {
        if (attempt >= 3) {
          log.error(
              "audit entries lost at shutdown: {} could not be stored: {}",
              buffer.size() + pendingCount,
              e.toString());
          return;
        }
        Thread.sleep(Math.min(MAX_BACKOFF.toMillis(), 200L << attempt));
      }
    }
  }

  /** {@code text} cut to {@link #MAX_TEXT} and made storable; null stays null. */
  static String text(String text) {
    if (text == null) {
      return null;
    }
    String cut = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text;
    StringBuilder out = null;
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < cut.length()
              && Character.isLowSurrogate(cut.charAt(i + 1));
      if (pair) {
        if (out != null) {
          out.append(c).append(cut.charAt(i + 1));
        }
        i++;
        continue;
      }
      boolean bad = c == '\u0000' || Character.isSurrogate(c);
      if (bad && out == null) {
        out = new StringBuilder(cut.length()).append(cut, 0, i);
      }
      if (out != null) {
        out.append(bad ? '\uFFFD' : c);
      }
    }
    return out == null ? cut : out.toString();
  }
}
