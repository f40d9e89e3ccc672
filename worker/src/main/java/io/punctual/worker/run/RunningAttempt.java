package io.punctual.worker.run;

import io.punctual.model.Job;
import io.punctual.store.JobTransitions.Attempt;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One attempt under way: the job as claimed, the thread running its handler, and the first reason
 * anyone gave for stopping it.
 */
public final class RunningAttempt {
  private final Job job;
  private final Instant startedAt;
  private volatile long startedNanos;
  private final Instant deadline;
  private final AtomicReference<StopReason> stopReason = new AtomicReference<>();
  private volatile Thread thread;
  private final AtomicBoolean reported = new AtomicBoolean();

  /** {@link System#nanoTime()} when the timeout fires; 0 until the handler starts with one. */
  private volatile long timeoutAtNanos;

  private volatile Duration timeout;

  /** The armed timeout timer ({@link AttemptTimeouts}), guarded by {@code this}. */
  private ScheduledFuture<?> timer;

  /** Whether the handler returned: no timer is armed after it. Guarded by {@code this}. */
  private boolean timerClosed;

  public RunningAttempt(Job job, Instant startedAt, Instant deadline) {
    this(job, startedAt, deadline, Duration.ZERO);
  }

  /**
   * An attempt whose handler starts {@code wait} from now, at {@code startedAt} (a job claimed
   * ahead of its due time starts at its {@code runAt}).
   */
  public RunningAttempt(Job job, Instant startedAt, Instant deadline, Duration wait) {
    this.job = job;
    this.startedAt = startedAt;
    this.startedNanos = System.nanoTime() + wait.toNanos();
    this.deadline = deadline;
  }

  public Job job() {
    return job;
  }

  public Attempt attempt() {
    return new Attempt(job.id(), job.attempt());
  }

  public Instant startedAt() {
    return startedAt;
  }

  /**
   * {@link System#nanoTime()} when the handler starts: planned (in the future while it waits for
   * its {@code runAt}), then, once {@link #markStarted()}, when it really did.
   */
  public long startedNanos() {
    return startedNanos;
  }

  /**
   * Records that the handler starts now, so that the attempt's duration (and the start its
   * execution row shows, its end minus its duration) counts a late wake-up as lag, not as work.
   */
  public void markStarted() {
    startedNanos = System.nanoTime();
  }

  /** When the timeout fires; null without a timeout. */
  public Instant deadline() {
    return deadline;
  }

  /** {@link System#nanoTime()} when the timeout fires; 0 without one (or before the start). */
  long timeoutAtNanos() {
    return timeoutAtNanos;
  }

  /** The timeout the handler started with; null without one. */
  Duration timeout() {
    return timeout;
  }

  /** The handler starts with {@code timeout}, which fires at {@code atNanos}. */
  void timeoutAt(Duration timeout, long atNanos) {
    this.timeout = timeout;
    this.timeoutAtNanos = atNanos == 0 ? 1 : atNanos; // 0 means "none"
  }

  /**
   * Arms the timeout timer {@code arm} gives, unless one is armed already or the handler returned
   * ({@link #closeTimer()}): a timer armed late never stops an attempt that has ended.
   */
  synchronized void armTimer(Supplier<ScheduledFuture<?>> arm) {
    if (timer == null && !timerClosed) {
      timer = arm.get();
    }
  }

  /** Whether a timeout timer is armed and not yet closed. */
  synchronized boolean timerArmed() {
    return timer != null && !timerClosed;
  }

  /** The handler returned: cancels the timer if one is armed, and arms none from now on. */
  synchronized void closeTimer() {
    timerClosed = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** Called by the thread that runs the handler, before it starts. */
  void bindTo(Thread thread) {
    this.thread = thread;
    if (stopReason.get() != null) {
      thread.interrupt();
    }
  }

  /** Called by the handler's thread when the handler returned, so nothing interrupts it later. */
  void unbind() {
    this.thread = null;
  }

  /** Asks the attempt to stop; the first reason wins. Returns whether this call set it. */
  public boolean stop(StopReason reason) {
    boolean first = stopReason.compareAndSet(null, reason);
    if (first) {
      Thread t = thread;
      if (t != null) {
        t.interrupt();
      }
    }
    return first;
  }

  public StopReason stopReason() {
    return stopReason.get();
  }

  public boolean isStopped() {
    return stopReason.get() != null;
  }

  /**
   * Takes the one report of this attempt's end: the handler's thread when it returns, or the worker
   * handing back an attempt whose handler ignored the interruption at the end of its shutdown
   * grace. Only the first caller gets true and reports; the other's result is dropped.
   */
  public boolean takeReport() {
    return reported.compareAndSet(false, true);
  }
}
