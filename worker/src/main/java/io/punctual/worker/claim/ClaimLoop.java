package io.punctual.worker.claim;

import com.codahale.metrics.Timer;
import io.punctual.model.Job;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.ReadyQueue.ClaimResult;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.lease.Redlock;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.store.CommitOutcome;
import io.punctual.store.JobTransitions;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.limit.SlotHolders;
import io.punctual.worker.metrics.WorkerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Takes due jobs while slots are free: Redis claim, then Redlock leases, then PostgreSQL confirms
 * (attempt + 1); each confirmed job is started with one slot of the semaphore. The slots are taken
 * as soon as Redis hands the jobs over, and the leases and the confirmation run on a thread of
 * their own: once a claim has waited half of {@code claimAhead} for its commit, this loop takes the
 * next due jobs beside it (up to {@code claimsInFlight} claims at once), so one slow commit delays
 * its own jobs only; while it is behind, only when a whole claim's worth of slots is free. Between
 * claims it waits on the {@link Waiter}: until the earliest queued due time (capped by {@code
 * maxIdleWait}), woken early by announcements, or for a slot while all are taken; while it is
 * behind on jobs already due, up to {@code claimGather} for a whole claim's worth of free slots.
 * Store errors are logged and the loop goes on after a short backoff; a confirmation that failed is
 * read back first, and what it committed all the same is handed back ({@link UnconfirmedClaims}).
 *
 * <p>While {@code WorkerSettings#defersClaims()}, a plain namespace's claim is read, not written:
 * its jobs enter the worker's held-claims set in Redis before their leases are taken, and {@link
 * UnwrittenClaims} before they start; their claims are written later, or with their ends.
 */
public final class ClaimLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  /** How soon a claimed job whose lease was taken is tried again, if it is still pending. */
  private static final Duration LEASE_CONFLICT_RETRY = Duration.ofMillis(100);

  private final Clock clock;
  private final JobTransitions transitions;
  private final Redlock redlock;
  private final ReadyQueue queue;
  private final WorkerSettings settings;
  private final Waiter waiter;
  private final Semaphore slots;
  private final Consumer<Job> starter;
  private final WorkerMetrics metrics;
  private final Predicate<String> claimable;
  private final NamespaceCaps caps;
  private final SlotHolders limits;

  /** Permits for claims being leased and confirmed ({@code claimsInFlight}). */
  private final Semaphore inFlight;

  /** A confirmation's failure, for the loop to back off on (set by the confirming thread). */
  private final AtomicReference<RuntimeException> confirmFailure = new AtomicReference<>();

  /** How the free slots are shared among the namespaces (used by the claim loop's thread only). */
  private final FairShare fair;

  private final ClaimReturns returns;
  private final OwnLeases leases;
  private final UnconfirmedClaims unconfirmed;

  /** The claims held unwritten, and their Redis set; both null when claims are written at once. */
  private final UnwrittenClaims unwritten;

  private final HeldClaims held;

  /**
   * @param stores where a claim reads and writes (Redis, leases, PostgreSQL, limits)
   * @param handlerSlots free handler slots, which only this loop acquires (for each job Redis hands
   *     over; handlers release them, and so do claims for the jobs PostgreSQL refused), and what
   *     starts a confirmed job on its slot
   * @param shares which namespaces may be claimed from now, and each one's share of the free slots
   */
  public ClaimLoop(
      ClaimStores stores,
      HandlerSlots handlerSlots,
      NamespaceShares shares,
      Waiter waiter,
      WorkerSettings settings,
      WorkerMetrics metrics) {
    this.clock = stores.clock();
    this.transitions = stores.transitions();
    this.redlock = stores.redlock();
    this.queue = stores.queue();
    this.limits = stores.limits();
    this.settings = settings;
    this.waiter = waiter;
    this.slots = handlerSlots.slots();
    this.starter = handlerSlots.starter();
    this.metrics = metrics;
    this.claimable = shares.claimable();
    this.caps = shares.caps();
    this.fair = new FairShare(shares.weight());
    this.leases =
        handlerSlots.leases() != null
            ? handlerSlots.leases()
            : OwnLeases.of(stores.redlock(), settings.workerId);
    this.returns = new ClaimReturns(stores.queries(), queue, redlock, settings.workerId);
    this.unconfirmed =
        new UnconfirmedClaims(
            stores.queries(), transitions, handlerSlots.heldHere(), settings.workerId);
    this.inFlight = new Semaphore(settings.claimsInFlight);
    boolean readOnly =
        settings.defersClaims() && handlerSlots.unwritten() != null && stores.held() != null;
    this.unwritten = readOnly ? handlerSlots.unwritten() : null;
    this.held = readOnly ? stores.held() : null;
  }

  /**
   * What one pass did, once its claims were confirmed.
   *
   * @param full whether every slot is taken
   * @param backlog whether jobs already due were left in a queue (the worker is behind)
   * @param nextDue the earliest due time left in the queues
   */
  public record Pass(int started, boolean full, boolean backlog, Optional<Instant> nextDue) {}

  /** What one pass took from Redis; {@code starting} completes with how many jobs each started. */
  private record Claims(
      boolean full,
      boolean backlog,
      Optional<Instant> nextDue,
      List<CompletableFuture<Integer>> starting) {}

  @Override
  // whenComplete's own future only mirrors the start's; noteFailure is where a failure goes.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void run() {
    Duration backoff = Duration.ofMillis(50);
    try {
      while (!waiter.isStopped()) {
        try {
          RuntimeException failed = confirmFailure.getAndSet(null);
          if (failed != null) {
            throw failed;
          }
          Claims claims = claim();
          claims.starting().forEach(f -> f.whenComplete(this::noteFailure));
          backoff = Duration.ofMillis(50);
          waitAfter(claims);
        } catch (InterruptedException e) {
          if (waiter.isStopped()) {
            return;
          }
        } catch (RuntimeException e) {
          log.warn(
              "claim failed, retrying in {} worker={}: {}",
              backoff,
              settings.workerId,
              e.toString());
          log.debug("claim failure", e);
          try {
            waiter.pause(backoff);
          } catch (InterruptedException ie) {
            return;
          }
          backoff = min(backoff.multipliedBy(2), MAX_BACKOFF);
        }
      }
    } finally {
      // Claims still being confirmed start their jobs (or put them back) before the loop ends.
      inFlight.acquireUninterruptibly(settings.claimsInFlight);
      inFlight.release(settings.claimsInFlight);
    }
  }

  private void noteFailure(Integer started, Throwable failure) {
    if (failure != null) {
      confirmFailure.compareAndSet(null, unwrap(failure));
    }
  }

  private void waitAfter(Claims pass) throws InterruptedException {
    int wholeClaim = Math.min(settings.claimBatchSize, settings.concurrency);
    if (pass.backlog() && slots.availablePermits() < wholeClaim && confirming()) {
      // Behind, and a claim is still being confirmed: a claim now would be a small one. Its jobs
      // are late either way; wait for a whole claim's worth of slots or for that confirmation,
      // after which the handlers it starts free their slots as before.
      waiter.awaitSlots(
          () -> confirming() ? slots.availablePermits() : Integer.MAX_VALUE,
          wholeClaim,
          settings.maxIdleWait);
    }
    if (pass.backlog()
        && settings.claimGather.isPositive()
        && slots.availablePermits() < wholeClaim) {
      // Jobs are waiting and fewer slots are free than one claim may take: give the handlers up
      // to claimGather to free a whole claim's worth, so that the next claim is not a handful of
      // jobs paying a whole claim's round trips and commit (the backlog is late either way).
      waiter.awaitSlots(slots::availablePermits, wholeClaim, settings.claimGather);
    }
    if (pass.full() || pass.backlog()) {
      waiter.awaitSlots(slots::availablePermits, 1, settings.maxIdleWait);
      return;
    }
    Instant cap = clock.instant().plus(settings.maxIdleWait);
    Instant until = pass.nextDue().filter(t -> t.isBefore(cap)).orElse(cap);
    waiter.awaitDue(until);
  }

  /**
   * One pass over the namespaces, claiming as many due jobs as there are free slots; returns once
   * its claims are confirmed and their jobs started. A failure in Redis or PostgreSQL is thrown.
   */
  public Pass runOnce() {
    Claims claims;
    try {
      claims = claim();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    int started = 0;
    for (CompletableFuture<Integer> f : claims.starting()) {
      try {
        started += f.join();
      } catch (CompletionException e) {
        throw unwrap(e.getCause());
      }
    }
    return new Pass(started, claims.full(), claims.backlog(), claims.nextDue());
  }

  /**
   * Takes due jobs from Redis for every namespace, as many as slots are free, shared by weight
   * ({@link FairShare}), and hands each namespace's claim to a thread that leases, confirms and
   * starts them. Before each claim it waits up to half of {@code claimAhead} for a claim being
   * confirmed, and while {@code claimsInFlight} claims are.
   */
  private Claims claim() throws InterruptedException {
    List<String> order = fair.order(settings.namespaces.stream().filter(claimable).toList());
    Optional<Instant> nextDue = Optional.empty();
    List<CompletableFuture<Integer>> starting = new ArrayList<>();
    boolean backlog = false;
    int[] plan = fair.plan(order, slots.availablePermits());
    int carried = 0; // what the namespaces claimed before left of their shares
    for (int i = 0; i < order.size(); i++) {
      if (confirming()) {
        // A claim overlaps the one before it only once that one is slow: half of claimAhead is
        // what a claim may take before jobs that come due behind it would start late. Claims
        // that are quick stay one at a time, each taking every job due by then.
        awaitConfirmations(settings.claimAhead.dividedBy(2));
      }
      inFlight.acquire();
      boolean handedOver = false;
      try {
        int free = slots.availablePermits();
        if (free == 0 || waiter.isStopped()) {
          return new Claims(free == 0, backlog, nextDue, starting);
        }
        Instant now = clock.instant();
        String ns = order.get(i);
        // A share of 0 still asks Redis (for nothing): when the namespace's jobs are due, it is
        // backlogged from now on, and the loop comes back for them as soon as slots free.
        int share = plan[i] + carried;
        int take = Math.min(Math.min(share, free), settings.claimBatchSize);
        if (take > 0) {
          // A capped namespace: no more than its room; none while it is full (its share goes on).
          take = caps.room(ns, take);
          if (take == 0) {
            carried = share;
            nextDue = earliest(nextDue, caps.nextLook());
            continue;
          }
        }
        ClaimResult result;
        try (Timer.Context t = metrics.claimRedis.time()) {
          // Up to claimAhead before their due time: the handlers start at runAt (JobExecutor).
          result = queue.claim(ns, take, now.plus(settings.claimAhead));
        }
        nextDue = earliest(nextDue, result.nextDue());
        // Only jobs already due count: a job claimed ahead holds its slot until its runAt, so
        // waiting for slots to gather a claim while jobs are merely close to due would wait for
        // slots that cannot free in time.
        boolean dueLeft = result.nextDue().filter(t -> !t.isAfter(now)).isPresent();
        backlog |= dueLeft;
        List<Claimed> claimed = result.claimed();
        fair.claimed(ns, claimed.size(), dueLeft);
        carried = share - claimed.size();
        if (!claimed.isEmpty()) {
          // Only this loop takes slots, so the ones it saw free still are.
          slots.acquireUninterruptibly(claimed.size());
          starting.add(startAsync(ns, claimed, now));
          handedOver = true;
        }
      } finally {
        if (!handedOver) {
          inFlight.release();
        }
      }
    }
    return new Claims(slots.availablePermits() == 0, backlog, nextDue, starting);
  }

  /** Leases, confirms and starts a claim on a thread of its own, which frees its permit. */
  private CompletableFuture<Integer> startAsync(String ns, List<Claimed> claimed, Instant now) {
    CompletableFuture<Integer> done = new CompletableFuture<>();
    Thread.ofVirtual()
        .name("punctual-confirm")
        .start(
            () -> {
              int[] handedOver = {0};
              Throwable failure = null;
              int started = 0;
              try {
                started = start(ns, claimed, now, handedOver);
              } catch (Throwable e) {
                failure = e;
              } finally {
                freeSlots(claimed.size() - handedOver[0]);
                inFlight.release();
                waiter.recheckSlots();
              }
              if (failure == null) {
                done.complete(started);
              } else {
                done.completeExceptionally(failure);
              }
            });
    return done;
  }

  /** Waits up to {@code max} until no claim is being confirmed. */
  private void awaitConfirmations(Duration max) throws InterruptedException {
    waiter.awaitSlots(() -> confirming() ? 0 : Integer.MAX_VALUE, 1, max);
  }

  /** Whether a claim is being leased and confirmed. */
  private boolean confirming() {
    return inFlight.availablePermits() < settings.claimsInFlight;
  }

  /**
   * Gives back {@code n} slots and tells the waiter how many are free: a handler's when it ended,
   * or those of claimed jobs that were not started (refused, or a failure).
   */
  public void freeSlots(int n) {
    if (n > 0) {
      slots.release(n);
      waiter.slotFreed(slots.availablePermits());
    }
  }

  /**
   * Leases and confirms claimed jobs, then starts them in claim order; returns how many. The slots
   * of the claimed jobs are taken already: {@code handedOver[0]} counts those given to the starter
   * (which frees a slot itself if it cannot start the job); the caller frees the others.
   */
  private int start(String ns, List<Claimed> claimed, Instant now, int[] handedOver) {
    // The claim's log lines name its worker and namespace (fields of a JSON log layout).
    try (MDC.MDCCloseable w = MDC.putCloseable("worker", settings.workerId);
        MDC.MDCCloseable n = MDC.putCloseable("namespace", ns)) {
      return startClaimed(ns, claimed, now, handedOver);
    }
  }

  private int startClaimed(String ns, List<Claimed> claimed, Instant now, int[] handedOver) {
    metrics.claimBatch.update(claimed.size());
    ClaimOrder order = ClaimOrder.of(claimed);
    List<UUID> ids = order.ids();
    Set<UUID> leased;
    // When the leases were asked for: an unwritten claim's lease is known to last from then.
    long leaseNanos = unwritten != null ? unwritten.nanoTime() : 0;
    try {
      if (held != null) {
        // Before the leases: a death watch that finds this worker dead with a lease taken finds
        // the job here too, and rescues it within seconds, not after the lease's TTL.
        held.hold(settings.workerId, ids);
      }
      try (Timer.Context t = metrics.claimLease.time()) {
        leased = leases.acquire(ids, settings.leaseTtl);
      }
    } catch (RuntimeException e) {
      gaveUp(ids);
      returns.putBack(ns, claimed, Set.copyOf(ids), now);
      throw e;
    }
    try {
      return confirmAndStart(ns, claimed, order, leased, leaseNanos, now, handedOver);
    } finally {
      leases.claimDone(leased); // started, registered as attempts, or given up by now
    }
  }

  private int confirmAndStart(
      String ns,
      List<Claimed> claimed,
      ClaimOrder order,
      Set<UUID> leased,
      long leaseNanos,
      Instant now,
      int[] handedOver) {
    List<UUID> ids = order.ids();
    List<UUID> leasedIds = ids.stream().filter(leased::contains).toList();
    if (leasedIds.size() < ids.size()) {
      List<UUID> taken = ids.stream().filter(id -> !leased.contains(id)).toList();
      log.debug(
          "{} claimed jobs are leased already; those still pending go back worker={}",
          taken.size(),
          settings.workerId);
      // Running elsewhere (a duplicate queue entry): dropped. Still PENDING: a lease not released
      // yet (a retry due at once) or a claim in progress elsewhere; back a moment later, so that
      // it is not lost until the reaper's reconciliation.
      returns.requeueIfPending(taken, now.plus(LEASE_CONFLICT_RETRY));
    }
    ClaimOutcome outcome;
    try {
      try (Timer.Context t = metrics.claimConfirm.time()) {
        outcome =
            transitions.claimJudged(
                ns, leasedIds, settings.workerId, caps.lockFor(ns), unwritten != null);
      }
    } catch (RuntimeException e) {
      gaveUp(ids);
      // The commit may have gone through although its answer was lost: read the claim back and
      // hand back what it committed (while the leases still keep other workers off these jobs),
      // then every job of it goes back into Redis, due now.
      if (CommitOutcome.mayHaveCommitted(e)) {
        metrics.handoffs.mark(unconfirmed.settle(leasedIds).size());
      }
      returns.putBack(ns, claimed, leased, now);
      returns.releaseQuietly(leasedIds);
      throw e;
    }
    List<Job> jobs = order.inOrder(outcome.claimed());
    Set<UUID> confirmed = ClaimOrder.idsOf(jobs);
    if (outcome.unwritten()) {
      unwritten.add(jobs, leaseNanos); // before they start: their ends must know
      gaveUp(ids.stream().filter(id -> !confirmed.contains(id)).toList());
    } else {
      gaveUp(ids);
    }
    Set<UUID> judged = new HashSet<>();
    outcome.refused().forEach(r -> judged.add(r.job().id()));
    List<UUID> refused = leasedIds.stream().filter(id -> !confirmed.contains(id)).toList();
    // Leases first: a job a limit refused may go back to its queue at once (a slot freed).
    returns.releaseQuietly(refused);
    if (outcome.refused().stream()
        .anyMatch(r -> r.reason() == ClaimOutcome.Reason.NAMESPACE_FULL)) {
      caps.refusedFull(ns);
    }
    limits.claimed(ns, outcome);
    returns.requeueIfPending(
        refused.stream().filter(id -> !judged.contains(id)).toList(), Instant.MIN);
    startAll(jobs, handedOver);
    if (!jobs.isEmpty()) {
      metrics.jobs.claimed(ns, jobs.size()); // a claim takes the jobs of one namespace's queue
    }
    metrics.claimed.mark(jobs.size());
    return jobs.size();
  }

  /**
   * Hands each job to the starter; {@code handedOver[0]} counts those handed over. A loop of its
   * own, as {@link ClaimOrder}'s are.
   */
  private void startAll(List<Job> jobs, int[] handedOver) {
    for (Job job : jobs) {
      handedOver[0]++;
      starter.accept(job); // its slot was taken with the Redis claim
    }
  }

  /** Jobs of a claim that hold no unwritten claim here: out of the held-claims set. */
  private void gaveUp(List<UUID> ids) {
    if (unwritten != null && !ids.isEmpty()) {
      unwritten.gaveUp(ids);
    }
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return a.get().isBefore(b.get()) ? a : b;
  }

  private static RuntimeException unwrap(Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
