package io.punctual.worker;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.loop.Loops;
import io.punctual.common.random.PerThreadRandom;
import io.punctual.queue.Promoter;
import io.punctual.queue.Stores;
import io.punctual.queue.WakeListener;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptReadBack;
import io.punctual.store.namespace.ClaimableNamespaces;
import io.punctual.store.registry.WorkerRegistry;
import io.punctual.worker.claim.ClaimLoop;
import io.punctual.worker.claim.ClaimStores;
import io.punctual.worker.claim.HandlerSlots;
import io.punctual.worker.claim.NamespaceCaps;
import io.punctual.worker.claim.NamespaceShares;
import io.punctual.worker.claim.OwnLeases;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.claim.UnwrittenLeases;
import io.punctual.worker.claim.Waiter;
import io.punctual.worker.complete.CompletionBatcher;
import io.punctual.worker.complete.CompletionStores;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.heartbeat.CancelListener;
import io.punctual.worker.heartbeat.ClaimWriter;
import io.punctual.worker.heartbeat.Heartbeater;
import io.punctual.worker.heartbeat.LeaseKeeper;
import io.punctual.worker.heartbeat.LivenessBeacon;
import io.punctual.worker.limit.SlotHolders;
import io.punctual.worker.metrics.QueueDepths;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.output.OutputRecorder;
import io.punctual.worker.run.AttemptTimeouts;
import io.punctual.worker.run.CompletionDecider;
import io.punctual.worker.run.JobExecutor;
import io.punctual.worker.run.RunningAttempts;
import io.punctual.worker.run.StopReason;
import io.punctual.worker.trace.AttemptTracing;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker: claims due jobs of its namespaces, runs them on virtual threads (at most {@code
 * concurrency} at once), records their attempts in batches, heartbeats them, and runs the promoter.
 * {@link #close()} shuts down gracefully. Does not close the {@link Stores}.
 */
public final class Worker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Worker.class);

  /**
   * How long {@link #close()} waits, after the shutdown grace, for the handlers it interrupted
   * before it hands back the attempts of those that ignore the interruption. A pod's grace period
   * must be longer than {@code shutdownGrace} plus this.
   */
  public static final Duration AFTER_INTERRUPT = Duration.ofSeconds(5);

  private final Stores stores;
  private final WorkerSettings settings;
  private final JobHandlers handlers;
  private final WorkerMetrics metrics;
  private final RunningAttempts running = new RunningAttempts();
  private final UnwrittenClaims unwritten = new UnwrittenClaims();
  private final Semaphore slots;
  private final Waiter waiter;
  private final SlotHolders limits;
  private final CompletionBatcher completions;
  private final ScheduledThreadPoolExecutor timeouts;
  private final ScheduledExecutorService heartbeats;
  private final ScheduledExecutorService leaseRenewals;
  private final ScheduledExecutorService promoting;
  private final ScheduledExecutorService livenessReports;
  private final ScheduledExecutorService claimWrites;

  /** Reads the queue depths the gauges show, every {@link QueueDepths#INTERVAL}. */
  private final ScheduledExecutorService depthReading;

  private final QueueDepths queueDepths;
  private final OutputRecorder output;
  private final JobExecutor executor;
  private final ClaimLoop claimLoop;
  private final Heartbeater heartbeater;
  private final ClaimWriter claimWriter;
  private final LeaseKeeper leaseKeeper;
  private final LivenessBeacon beacon;
  private final CancelListener cancels;
  private final Promoter promoter;
  private final Thread claimThread;
  private final AtomicInteger state = new AtomicInteger(NEW);
  private volatile WakeListener wakeListener;
  private volatile boolean registered;

  private static final int NEW = 0;
  private static final int STARTED = 1;
  private static final int CLOSED = 2;

  public Worker(
      Stores stores, WorkerSettings settings, JobHandlers handlers, MetricRegistry metrics) {
    this(stores, settings, handlers, metrics, AttemptTracing.off());
  }

  /**
   * A worker whose attempts are traced with {@code tracing} ({@link AttemptTracing#on}: one span
   * per attempt, a child of the job's {@code traceparent}).
   */
  public Worker(
      Stores stores,
      WorkerSettings settings,
      JobHandlers handlers,
      MetricRegistry metrics,
      AttemptTracing tracing) {
    settings.validate();
    this.stores = stores;
    this.settings = settings;
    this.handlers = handlers;
    this.metrics = new WorkerMetrics(metrics);
    this.slots = new Semaphore(settings.concurrency);
    this.waiter = new Waiter(stores.clock(), settings.claimAhead);
    this.limits = slotHolders(stores, settings.workerId);
    ClaimableNamespaces claimable =
        new ClaimableNamespaces(stores.namespaces(), stores.clock(), settings.namespaceRefresh);
    NamespaceCaps caps =
        new NamespaceCaps(
            claimable::maxRunning,
            stores.namespaces()::runningRoom,
            claimable::readSoon,
            () -> waiter.announce(stores.clock().instant()),
            stores.clock());
    OwnLeases leases =
        new OwnLeases(
            stores.redlock(),
            settings.workerId,
            a -> unwritten.holdsOther(a.jobId(), a.attempt()) || running.holdsOther(a));
    this.completions =
        new CompletionBatcher(
            stores.clock(),
            completionStores(stores, limits, caps::freed),
            settings,
            this.metrics,
            unwritten,
            leases);
    this.timeouts = new ScheduledThreadPoolExecutor(1, daemon("punctual-timeouts"));
    timeouts.setRemoveOnCancelPolicy(true);
    this.heartbeats = Executors.newSingleThreadScheduledExecutor(daemon("punctual-heartbeat"));
    this.leaseRenewals = Executors.newSingleThreadScheduledExecutor(daemon("punctual-leases"));
    this.promoting = Executors.newSingleThreadScheduledExecutor(daemon("punctual-promoter"));
    this.livenessReports = Executors.newSingleThreadScheduledExecutor(daemon("punctual-liveness"));
    this.claimWrites = Executors.newSingleThreadScheduledExecutor(daemon("punctual-claim-writes"));
    this.depthReading = Executors.newSingleThreadScheduledExecutor(daemon("punctual-queue-depth"));
    this.queueDepths = new QueueDepths(stores.queue(), settings.namespaces, stores.clock());
    this.output =
        new OutputRecorder(
            new AttemptOutputs(stores.database().jdbi()),
            settings.outputFlushInterval,
            settings.logLinesPerAttempt,
            this.metrics.logLinesDropped);
    this.executor =
        new JobExecutor(
            handlers,
            new CompletionDecider(stores.clock(), PerThreadRandom.INSTANCE),
            new JobExecutor.Tracking(
                running, timeouts, stores.clock(), claimable::maxTimeout, tracing, output),
            new JobExecutor.Ends(completions::add, this::slotFreed),
            settings,
            this.metrics);
    this.claimLoop =
        new ClaimLoop(
            claimStores(stores, limits),
            new HandlerSlots(
                slots,
                executor::start,
                a -> running.holds(a) || completions.pendingResults().contains(a),
                unwritten,
                leases),
            new NamespaceShares(claimable::isActive, claimable::weight, caps),
            waiter,
            settings,
            this.metrics);
    this.leaseKeeper =
        new LeaseKeeper(
            stores.redlock(),
            running,
            completions.pendingResults(),
            settings,
            this.metrics.jobs::leasesLost);
    this.heartbeater =
        new Heartbeater(stores.transitions(), running, leaseKeeper, unwritten, settings);
    this.claimWriter =
        new ClaimWriter(
            stores.transitions(),
            unwritten,
            new UnwrittenLeases(unwritten, stores.redlock(), settings.workerId, settings.leaseTtl),
            stores.heldClaims(),
            running,
            settings);
    this.beacon = new LivenessBeacon(stores.liveness(), settings, this.metrics);
    this.cancels = new CancelListener(running, stores.clock(), settings, this.metrics);
    this.promoter = stores.promoter(settings.workerId);
    this.claimThread = Thread.ofPlatform().daemon().name("punctual-claim").unstarted(claimLoop);
  }

  /** What claims read and write, of a process's stores. */
  public static ClaimStores claimStores(Stores stores, SlotHolders limits) {
    return new ClaimStores(
        stores.clock(),
        stores.queue(),
        stores.redlock(),
        stores.queries(),
        stores.transitions(),
        limits,
        stores.heldClaims());
  }

  /** Where finished attempts go, of a process's stores. */
  public static CompletionStores completionStores(Stores stores, SlotHolders limits) {
    return completionStores(stores, limits, namespaces -> {});
  }

  private static CompletionStores completionStores(
      Stores stores, SlotHolders limits, Consumer<Set<String>> namespacesFreed) {
    return new CompletionStores(
        stores.transitions(),
        new AttemptReadBack(stores.database().jdbi()),
        stores.redlock(),
        stores.queue(),
        stores.queueSettings(),
        limits,
        namespacesFreed);
  }

  /** The limits' slots held by this worker's attempts. */
  public static SlotHolders slotHolders(Stores stores, String workerId) {
    return new SlotHolders(stores.holds(), stores.limits(), stores.queue(), workerId);
  }

  private void slotFreed() {
    claimLoop.freeSlots(1);
  }

  public String workerId() {
    return settings.workerId;
  }

  /** Attempts running now. */
  public int running() {
    return running.size();
  }

  /** Whether the claim loop runs: started, not closed, and its thread alive (for health checks). */
  public boolean claiming() {
    return state.get() == STARTED && claimThread.isAlive();
  }

  /** Whether the claim loop is waiting for a due time (nothing claimable now). */
  boolean isIdle() {
    return waiter.isWaitingForDue();
  }

  /**
   * Runs {@code task} on {@code executor} after {@code initialNanos}, then {@code periodNanos}
   * after each run ends, until the executor shuts down (which is what stops it: the future is not
   * kept). Each task catches and logs its own failures, so a failed run never ends the schedule.
   */
  private static void every(
      ScheduledExecutorService executor, Runnable task, long initialNanos, long periodNanos) {
    ScheduledFuture<?> unused =
        executor.scheduleWithFixedDelay(task, initialNanos, periodNanos, TimeUnit.NANOSECONDS);
  }

  public void start() {
    if (!state.compareAndSet(NEW, STARTED)) {
      throw new IllegalStateException("worker already started or closed");
    }
    metrics.registerGauges(running::size, queueDepths);
    metrics.registerQueueRebuilds(promoter::rebuilds);
    metrics.registerLockNodesWaiting(stores.redlock()::nodesWaitingOutRestart);
    register();
    subscribe();
    // In the live set before the first claim: a worker dying right after it is rescued fast too.
    beacon.runOnce();
    long alive = settings.livenessInterval.toNanos();
    every(livenessReports, beacon::runOnce, alive, alive);
    completions.start();
    output.start();
    claimThread.start();
    long beat = settings.heartbeatInterval.toNanos();
    every(heartbeats, this::beat, beat, beat);
    every(leaseRenewals, this::renewLeases, beat, beat);
    long sweep = AttemptTimeouts.SWEEP.toNanos();
    every(timeouts, this::armTimeouts, sweep, sweep);
    if (settings.defersClaims()) {
      long writes = Math.max(settings.claimWriteAfter.toNanos() / 2, 1_000_000L);
      every(claimWrites, this::writeClaims, writes, writes);
    } else if (settings.claimWriteAfter.isPositive()) {
      log.info(
          "claims written at once: worker.leaseTtl {} minus worker.heartbeatInterval {} does not"
              + " outlast worker.livenessTtl {} plus {} worker={}",
          settings.leaseTtl,
          settings.heartbeatInterval,
          settings.livenessTtl,
          WorkerSettings.DEATH_SEEN_ALLOWANCE,
          settings.workerId);
    }
    every(promoting, this::promote, 0, stores.queueSettings().promoterInterval.toNanos());
    every(depthReading, queueDepths::runOnce, 0, QueueDepths.INTERVAL.toNanos());
    log.info(
        "worker started worker={} namespaces={} concurrency={} handlers: {}",
        settings.workerId,
        settings.namespaces,
        settings.concurrency,
        handlers.describe());
  }

  /** Subscribes to wake-ups and cancels unless subscribed, or stopping (close() unsubscribes). */
  private void subscribe() {
    if (wakeListener != null || state.get() == CLOSED) {
      return;
    }
    try {
      wakeListener =
          WakeListener.subscribe(
              stores.redisClient(),
              stores.keys(),
              settings.namespaces,
              (ns, dueAt) -> waiter.announce(dueAt),
              cancels::onNotice);
      if (state.get() == CLOSED) {
        closeWakeListener(); // close() ran meanwhile: do not leave this subscription open
      }
    } catch (RuntimeException e) {
      failed("wake subscription (retried at the next heartbeat)", e);
    }
  }

  private void beat() {
    try {
      subscribe();
      heartbeater.runOnce();
      reportIn();
    } catch (RuntimeException e) {
      failed("heartbeat", e);
    }
  }

  private void armTimeouts() {
    try {
      executor.armNearTimeouts();
    } catch (RuntimeException e) {
      failed("timeout arming", e);
    }
  }

  private void writeClaims() {
    try {
      claimWriter.runOnce();
    } catch (RuntimeException e) {
      failed("claim write", e);
    }
  }

  /** Redis only: never waits for PostgreSQL (see {@link LeaseKeeper}). */
  private void renewLeases() {
    try {
      leaseKeeper.renewAll();
    } catch (RuntimeException e) {
      failed("lease renewal", e);
    }
  }

  /** Writes this worker's row in the registry (again, if the reaper pruned it meanwhile). */
  private void reportIn() {
    if (!registered || !stores.workers().beat(settings.workerId, running.size())) {
      register();
    }
  }

  private void register() {
    try {
      stores
          .workers()
          .register(
              new WorkerRegistry.Registration(
                  settings.workerId,
                  hostName(),
                  ProcessHandle.current().pid(),
                  settings.namespaces,
                  settings.concurrency,
                  settings.heartbeatInterval,
                  List.copyOf(handlers.types())));
      registered = true;
    } catch (RuntimeException e) {
      log.warn("worker registration failed worker={}: {}", settings.workerId, e.toString());
    }
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "unknown";
    }
  }

  private void promote() {
    try {
      promoter.runOnce();
    } catch (RuntimeException e) {
      failed("promoter pass", e);
    }
  }

  /**
   * Logs a periodic task's failure; one that {@code close()} interrupted in flight is expected (the
   * next pass, here or in another process, redoes its work) and is logged at debug only.
   */
  private void failed(String task, RuntimeException e) {
    if (state.get() == CLOSED) {
      log.debug("{} stopped by shutdown worker={}: {}", task, settings.workerId, e.toString());
    } else {
      log.warn("{} failed worker={}: {}", task, settings.workerId, e.toString());
    }
  }

  /**
   * Stops claiming, lets running handlers finish within {@code shutdownGrace}, interrupts the rest
   * and hands their attempts back (PENDING again at once, without using up an attempt: transition
   * HAND_BACK), writes every completion, releases leases and stops all threads. Idempotent.
   */
  @Override
  public void close() {
    int previous = state.getAndSet(CLOSED);
    if (previous == NEW) {
      Loops.stopNow(heartbeats);
      Loops.stopNow(leaseRenewals);
      Loops.stopNow(promoting);
      Loops.stopNow(depthReading);
      Loops.stopNow(timeouts);
      Loops.stopNow(livenessReports);
      Loops.stopNow(claimWrites);
      output.close();
    }
    if (previous != STARTED) {
      return;
    }
    log.info("worker stopping worker={} running={}", settings.workerId, running.size());
    waiter.stop();
    join(claimThread);
    closeWakeListener();
    // Every attempt still running has its claim written now, so that one handed back at the end
    // of the grace is an ordinary RUNNING attempt (and one the death watch would rescue is found).
    writeAllClaims();
    awaitHandlers();
    output.close();
    Loops.stopNow(heartbeats);
    Loops.stopNow(promoting);
    Loops.stopNow(depthReading);
    Loops.stopNow(timeouts);
    completions.close();
    Loops.stopNow(claimWrites);
    writeAllClaims(); // and the held-claims set emptied of what the last results wrote
    // Only now: leases of results still being written stay renewed until they are.
    Loops.stopNow(leaseRenewals);
    Loops.stopNow(livenessReports);
    if (running.size() == 0) {
      beacon.leave();
    } // else: its entry expires and a reaper rescues what is left within worker.livenessTtl
    try {
      promoter.release();
    } catch (RuntimeException e) {
      log.debug("promoter lease release failed", e);
    }
    metrics.close();
    try {
      stores.workers().stop(settings.workerId);
    } catch (RuntimeException e) {
      log.warn("could not mark the worker stopped worker={}: {}", settings.workerId, e.toString());
    }
    log.info("worker stopped worker={}", settings.workerId);
  }

  /**
   * Asks the running attempt of job {@code jobId} to stop for {@code reason} (its handler's thread
   * is interrupted; {@link StopReason#SHUTDOWN} hands the attempt back); false when none runs here.
   */
  public boolean stopAttempt(java.util.UUID jobId, StopReason reason) {
    return running.of(jobId).map(a -> a.stop(reason)).orElse(false);
  }

  /**
   * Stops as if the process had died, for a worker whose handlers can no longer report (the remote
   * worker an API process runs this worker for stopped answering): stops claiming, heartbeats,
   * lease renewals and its liveness reports at once, leaves its running attempts RUNNING with their
   * leases, and drops whatever their handlers return from now on. Results of attempts that ended
   * before are still written. The death watch rescues the attempts left (recorded LOST) once its
   * live-set entry expires, within {@code worker.livenessTtl} plus a death check. Idempotent.
   */
  public void abandon() {
    int previous = state.getAndSet(CLOSED);
    if (previous == STARTED) {
      waiter.stop();
      join(claimThread);
      closeWakeListener();
      for (var attempt : running.snapshot()) {
        attempt.takeReport(); // its handler's result, if it ever returns one, is dropped
      }
    }
    Loops.stopNow(livenessReports);
    Loops.stopNow(claimWrites);
    Loops.stopNow(heartbeats);
    Loops.stopNow(leaseRenewals);
    Loops.stopNow(promoting);
    Loops.stopNow(depthReading);
    Loops.stopNow(timeouts);
    if (previous == STARTED) {
      completions.close();
      output.close();
      metrics.close();
      log.warn(
          "worker abandoned, its {} running attempts left to the death watch worker={}",
          running.size(),
          settings.workerId);
    }
  }

  private void writeAllClaims() {
    try {
      claimWriter.writeAll();
    } catch (RuntimeException e) {
      log.warn(
          "could not write {} claims held unwritten worker={}: {}",
          unwritten.size(),
          settings.workerId,
          e.toString());
    }
  }

  private void awaitHandlers() {
    try {
      if (slots.tryAcquire(
          settings.concurrency, settings.shutdownGrace.toNanos(), TimeUnit.NANOSECONDS)) {
        return;
      }
      // Interrupted handlers end with their attempts handed back (Outcome.HandedBack); one that
      // returns a result meanwhile has it recorded as usual.
      int interrupted = running.stopAll(StopReason.SHUTDOWN);
      log.warn(
          "shutdown grace over, interrupted {} running handlers, handing their attempts back"
              + " worker={}",
          interrupted,
          settings.workerId);
      if (!slots.tryAcquire(
          settings.concurrency, AFTER_INTERRUPT.toNanos(), TimeUnit.NANOSECONDS)) {
        // The fence refuses whatever these handlers write later; their jobs run again now.
        int stuck = executor.handBack(running.snapshot());
        log.warn(
            "{} handlers ignore interruption; their attempts are handed back anyway worker={}",
            stuck,
            settings.workerId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeWakeListener() {
    WakeListener listener = wakeListener;
    wakeListener = null;
    if (listener != null) {
      try {
        listener.close();
      } catch (RuntimeException e) {
        log.debug("wake listener close failed", e);
      }
    }
  }

  private void join(Thread thread) {
    try {
      thread.join(settings.maxIdleWait.plusSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return Thread.ofPlatform().daemon().name(name).factory();
  }
}
