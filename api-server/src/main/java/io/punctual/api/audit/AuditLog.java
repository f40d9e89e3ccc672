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
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log's recorder: {@link #record} puts an entry in a bounded buffer, and one background
 * writer stores what the buffer holds every {@code audit.flushInterval}, in INSERTs of up to {@code
 * audit.maxBatch} rows. A writer that cannot store a batch keeps it and tries again, backing off up
 * to {@link #MAX_BACKOFF}; meanwhile the buffer fills. {@link #stop} stores what is left. What a
 * crash of the process loses: the entries of the last flush interval or so (and, while PostgreSQL
 * is away, what is buffered).
 *
 * <p><b>A full buffer never holds up a request.</b> An entry that finds it full is left out and
 * counted ({@code punctual.audit.dropped}); the writer stores one {@code dropped} entry for each
 * stretch of them (how many, the first and the last) as soon as it can store again. Waiting for
 * room instead (as before) turned a slow PostgreSQL, or a flood of refused requests filling the
 * buffer, into slow answers for every caller; the access log still has every request.
 *
 * <p><b>Refused authentications are counted, not written one by one</b> ({@link #refused}): per
 * source address, minute, reason and route, one {@code refusals} entry each (how many, the first
 * and the last), stored once the minute is over. At most {@link #MAX_REFUSAL_GROUPS} such groups
 * are kept at once; refusals beyond them are counted under the source {@code (other sources)}.
 *
 * <p>Metrics: {@code punctual.audit.buffered} (entries not stored yet), {@code
 * punctual.audit.written}, {@code punctual.audit.writeFailures} (failed INSERTs, each retried),
 * {@code punctual.audit.dropped} (entries left out: alert on it) and {@code
 * punctual.audit.refusalsCounted} (refused authentications counted into summaries).
 */
public final class AuditLog implements Managed {
  private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  private static final int MAX_TEXT = 500;

  /** Most refusal groups (source, minute, reason, route) counted at once. */
  static final int MAX_REFUSAL_GROUPS = 1_000;

  /** The source refusals beyond {@link #MAX_REFUSAL_GROUPS} are counted under. */
  static final String OTHER_SOURCES = "(other sources)";

  /** The action of a {@code dropped} entry. */
  static final String DROPPED_ACTION = "(audit buffer full)";

  private final AuditStore store;
  private final Clock clock;
  private final AuditSettings settings;
  private final BlockingQueue<Entry> buffer;
  private final List<Entry> pending = new ArrayList<>();
  private final Map<RefusalGroup, Tally> refusals = new ConcurrentHashMap<>();
  private final Object droppedLock = new Object();
  private Tally dropped; // guarded by droppedLock
  private final Meter written;
  private final Meter failures;
  private final Meter droppedMeter;
  private final Meter refusalsCounted;
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
    this.droppedMeter = metrics.meter("punctual.audit.dropped");
    this.refusalsCounted = metrics.meter("punctual.audit.refusalsCounted");
    metrics.gauge(
        "punctual.audit.buffered", () -> (Gauge<Integer>) () -> buffer.size() + pendingCount);
  }

  /** Refusals of one source address, minute, reason and route. */
  private record RefusalGroup(Instant minute, String source, String reason, String action) {}

  /** How many events of a summary, the first and the last; {@code problem} of refusals. */
  private record Tally(Instant first, Instant last, int count, String problem) {
    Tally plus(Instant at) {
      return new Tally(first, at, count == Integer.MAX_VALUE ? count : count + 1, problem);
    }
  }

  /**
   * Records one answered request, at the clock's current time. {@code actor} null: the sender is
   * not known. {@code problem}: the problem type of a refusal, else null. Never waits: when the
   * buffer is full the entry is left out and counted (see the class). Texts are stored as given,
   * but cut to 500 characters and with any character PostgreSQL cannot store (NUL, a lone
   * surrogate) replaced by U+FFFD.
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
    if (!buffer.offer(entry)) {
      droppedMeter.mark();
      synchronized (droppedLock) {
        dropped =
            dropped == null ? new Tally(entry.at(), entry.at(), 1, null) : dropped.plus(entry.at());
      }
    }
  }

  /**
   * Counts one refused authentication (401) of a request from {@code source} (the client address)
   * on {@code action} (method and route), for {@code reason}, with {@code problem} its type. Costs
   * a map update: the summary is stored once its minute is over.
   */
  public void refused(String source, String reason, String action, String problem) {
    Instant now = clock.instant();
    RefusalGroup group =
        new RefusalGroup(now.truncatedTo(ChronoUnit.MINUTES), text(source), reason, text(action));
    if (refusals.size() >= MAX_REFUSAL_GROUPS && !refusals.containsKey(group)) {
      group = new RefusalGroup(group.minute(), OTHER_SOURCES, reason, group.action());
    }
    refusalsCounted.mark();
    if (stopped) {
      writeNow(summary(group, new Tally(now, now, 1, problem)));
      return;
    }
    refusals.compute(
        group, (g, tally) -> tally == null ? new Tally(now, now, 1, problem) : tally.plus(now));
  }

  /**
   * The summaries due now, taken out of memory: the refusals of minutes that are over ({@code all}:
   * of every minute) and the entries dropped since the last call.
   */
  private List<Entry> takeSummaries(boolean all) {
    List<Entry> out = new ArrayList<>();
    Instant minute = clock.instant().truncatedTo(ChronoUnit.MINUTES);
    // a copy of the keys: a refusal may add one meanwhile (ConcurrentHashMap would allow it, but
    // the copy says what this pass looks at)
    for (RefusalGroup group : List.copyOf(refusals.keySet())) {
      if (all || group.minute().isBefore(minute)) {
        Tally tally = refusals.remove(group);
        if (tally != null) {
          out.add(summary(group, tally));
        }
      }
    }
    Tally lost;
    synchronized (droppedLock) {
      lost = dropped;
      dropped = null;
    }
    if (lost != null) {
      out.add(
          new Entry(
              lost.last(),
              null,
              null,
              null,
              null,
              DROPPED_ACTION,
              null,
              0,
              null,
              AuditStore.DROPPED,
              lost.count(),
              lost.first(),
              null,
              null));
    }
    return out;
  }

  private static Entry summary(RefusalGroup group, Tally tally) {
    return new Entry(
        tally.last(),
        null,
        null,
        null,
        null,
        group.action(),
        null,
        401,
        tally.problem(),
        AuditStore.REFUSALS,
        tally.count(),
        tally.first(),
        group.source(),
        group.reason());
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
   * Stores every entry buffered now (a batch that failed before first), and the summaries of the
   * minutes that are over and of the entries dropped; returns how many rows. Throws when PostgreSQL
   * refuses, keeping the entries not stored for the next call.
   */
  public int runOnce() {
    return flush(false);
  }

  private synchronized int flush(boolean allSummaries) {
    int total = 0;
    while (true) {
      if (pending.isEmpty()) {
        buffer.drainTo(pending, settings.maxBatch);
        pending.addAll(takeSummaries(allSummaries));
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
        flush(true);
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
