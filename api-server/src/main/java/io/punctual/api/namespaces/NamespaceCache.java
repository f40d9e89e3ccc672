package io.punctual.api.namespaces;

import io.dropwizard.lifecycle.Managed;
import io.punctual.store.namespace.Namespace;
import io.punctual.store.namespace.Namespaces;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespaces as this API server knows them, so that the submit path never asks PostgreSQL:
 * every row of {@code namespaces}, read again every {@code api.namespaceRefresh} ({@link #runOnce}
 * on a thread of its own) and at once on this server when it changes a namespace through the API.
 *
 * <p>For a namespace with a {@code maxPending} quota it also holds a pending count: the PENDING
 * jobs counted at the last read (a count that stops at {@code maxPending + 1}, so its cost is
 * bounded by the quota), plus the jobs this server admitted since. Jobs other API servers admit
 * show only at the next read, and jobs that ended since show only then too: the count is stale by
 * at most one refresh period. Jobs admitted here whose request has not ended yet (their commit may
 * come after a read's count) are kept as admitted across that read, never dropped: a read while
 * they are stored may count them twice until the next read, never not at all.
 */
public final class NamespaceCache implements Managed {
  private static final Logger log = LoggerFactory.getLogger(NamespaceCache.class);

  /** A namespace as cached, with its pending count. */
  public static final class Entry {
    private final Namespace namespace;
    private final long pendingAtRead;
    private final AtomicLong admittedSince;
    private final long change;

    /** Jobs admitted here whose requests have not ended: shared by the namespace's entries. */
    private final AtomicLong inFlight;

    Entry(Namespace namespace, long pendingAtRead, long admittedSince, long change) {
      this(namespace, pendingAtRead, admittedSince, change, new AtomicLong());
    }

    private Entry(
        Namespace namespace,
        long pendingAtRead,
        long admittedSince,
        long change,
        AtomicLong inFlight) {
      this.namespace = namespace;
      this.pendingAtRead = pendingAtRead;
      this.admittedSince = new AtomicLong(admittedSince);
      this.change = change;
      this.inFlight = inFlight;
    }

    public Namespace namespace() {
      return namespace;
    }

    /** PENDING jobs as last counted plus those admitted here since (only with a maxPending). */
    public long pending() {
      return pendingAtRead + admittedSince.get();
    }

    /** Admits {@code jobs}; {@link #stored} once the request that stores them has ended. */
    void admitting(int jobs) {
      inFlight.addAndGet(jobs);
      admittedSince.addAndGet(jobs);
    }

    /** The request that admitted {@code jobs} ended: they are stored (or not at all) by now. */
    void stored(int jobs) {
      inFlight.addAndGet(-jobs);
    }

    /**
     * The admissions a count begun now is sure to see: those whose requests ended. Read before the
     * count: admitted since, less those in flight (read in that order, a request admitted between
     * the two reads is kept, one ended between them is seen by the count).
     */
    long admittedAndEnded() {
      long admitted = admittedSince.get();
      return admitted - inFlight.get();
    }

    /**
     * This entry as a refresh replaces it: {@code ns} and {@code pending} as read, plus the jobs
     * admitted here since {@code admittedAtCount} (this entry's admissions just before the count):
     * those the count may not have seen. Before, they were dropped, and a batch admitted while a
     * refresh read the namespace did not count against maxPending until the next refresh
     * (NamespaceQuotaIT saw a second batch admitted over the quota). {@code admittedAtCount} leaves
     * out those still in flight ({@link #admittedAndEnded}): one admitted before the count and
     * committed after it is kept too. One committed while the count reads is counted twice, until
     * the next refresh.
     */
    Entry refreshed(Namespace ns, long pending, long admittedAtCount, long change) {
      return new Entry(ns, pending, admittedSince.get() - admittedAtCount, change, inFlight);
    }
  }

  private final Namespaces store;
  private final Clock clock;
  private final Duration refresh;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  /** Counts this server's own changes, so that a read begun before one does not undo it. */
  private final AtomicLong changes = new AtomicLong();

  private volatile Instant readAt;
  private ScheduledExecutorService timer;

  public NamespaceCache(Namespaces store, Clock clock, Duration refresh) {
    this.store = store;
    this.clock = clock;
    this.refresh = refresh;
  }

  /** The namespace's entry; its row is created first (active, unlimited) if it has none. */
  public Entry entry(String name) {
    Entry entry = entries.get(name);
    if (entry != null) {
      return entry;
    }
    return put(store.ensure(name));
  }

  /** The namespace as cached, if it is; never asks PostgreSQL. */
  public Entry cached(String name) {
    return entries.get(name);
  }

  /** Takes a namespace this server has just changed, keeping its pending count. */
  public Entry put(Namespace namespace) {
    long change = changes.incrementAndGet();
    return entries.compute(
        namespace.name(),
        (name, old) ->
            old == null
                ? new Entry(namespace, 0, 0, change)
                : new Entry(
                    namespace, old.pendingAtRead, old.admittedSince.get(), change, old.inFlight));
  }

  /**
   * Takes a namespace this server has just created or re-quotaed, with its pending jobs counted now
   * (when it has a maxPending), so that a new maxPending holds from this request on.
   */
  public Entry putCounted(Namespace namespace) {
    Long max = namespace.quota().maxPending();
    if (max == null) {
      return put(namespace);
    }
    Entry old = entries.get(namespace.name());
    long admittedAtCount = old == null ? 0 : old.admittedAndEnded();
    long pending = store.countPending(namespace.name(), max + 1);
    long change = changes.incrementAndGet();
    Entry entry =
        old == null
            ? new Entry(namespace, pending, 0, change)
            : old.refreshed(namespace, pending, admittedAtCount, change);
    entries.put(namespace.name(), entry);
    return entry;
  }

  /** When the rows were last read (null: never). */
  public Instant readAt() {
    return readAt;
  }

  public Duration refresh() {
    return refresh;
  }

  /** Reads every namespace and the pending counts of those with a maxPending; on failure, logs. */
  public void runOnce() {
    long before = changes.get();
    try {
      Map<String, Entry> read = new HashMap<>();
      Map<String, Long> admittedAtCount = new HashMap<>();
      for (Namespace ns : store.all()) {
        Long max = ns.quota().maxPending();
        Entry known = entries.get(ns.name());
        admittedAtCount.put(ns.name(), known == null ? 0 : known.admittedAndEnded());
        long pending = max == null ? 0 : store.countPending(ns.name(), max + 1);
        read.put(ns.name(), new Entry(ns, pending, 0, before));
      }
      // A namespace this server changed while the rows were read keeps its newer state; one it
      // admitted jobs to meanwhile keeps those admissions.
      read.forEach(
          (name, fresh) ->
              entries.compute(
                  name,
                  (n, old) -> {
                    if (old == null) {
                      return fresh;
                    }
                    if (old.change > before) {
                      return old;
                    }
                    return old.refreshed(
                        fresh.namespace, fresh.pendingAtRead, admittedAtCount.get(name), before);
                  }));
      readAt = clock.instant();
    } catch (RuntimeException e) {
      log.warn("could not read namespaces; keeping what was read before: {}", e.toString());
    }
  }

  @Override
  // runOnce catches and logs its failures, so the periodic task's future never holds one.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void start() {
    runOnce();
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("punctual-namespaces").unstarted(r));
    long ms = refresh.toMillis();
    timer.scheduleWithFixedDelay(this::runOnce, ms, ms, TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
