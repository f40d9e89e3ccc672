package io.punctual.worker.claim;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Where the claim loop waits between claims, without polling: until the next known due time, or
 * earlier when a job due sooner is announced ({@link #announce}), or — while every slot is taken —
 * until a slot frees up ({@link #slotFreed}). Announcements that arrive while the loop is busy are
 * remembered for its next wait, so none is lost.
 */
public final class Waiter {
  /** Why a wait ended. */
  public enum Wake {
    /** The time waited for was reached. */
    DUE,
    /** A job due before that time was announced, and its time came. */
    ANNOUNCED,
    /** A slot freed up. */
    SLOT,
    /** The wait's upper bound passed. */
    TIMEOUT,
    /** {@link #stop()} was called. */
    STOPPED
  }

  private final Clock clock;
  private final Duration lead;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private Instant announced;
  private Instant target;
  private volatile boolean waitingForSlot;
  private boolean slotFreed;
  private volatile boolean stopped;

  /** A waiter that wakes when due times come. */
  public Waiter(Clock clock) {
    this(clock, Duration.ZERO);
  }

  /**
   * A waiter that wakes {@code lead} before each due time, waited for or announced (the claim loop
   * claims jobs that far ahead: {@code worker.claimAhead}).
   */
  public Waiter(Clock clock, Duration lead) {
    this.clock = clock;
    this.lead = lead;
  }

  /**
   * Waits until {@code lead} before {@code until} (by the clock), or before an announced due time
   * earlier than it. Returns at once when that time has already come.
   */
  public Wake awaitDue(Instant until) throws InterruptedException {
    lock.lock();
    try {
      while (!stopped) {
        boolean early = announced != null && announced.isBefore(until);
        Instant t = early ? announced : until;
        target = t;
        long nanos = Duration.between(clock.instant(), t.minus(lead)).toNanos();
        if (nanos <= 0) {
          return early ? Wake.ANNOUNCED : Wake.DUE;
        }
        changed.awaitNanos(nanos);
      }
      return Wake.STOPPED;
    } finally {
      target = null;
      announced = null;
      lock.unlock();
    }
  }

  /** While {@code full} holds, waits for {@link #slotFreed()}, at most {@code max}. */
  public Wake awaitSlot(BooleanSupplier full, Duration max) throws InterruptedException {
    lock.lock();
    try {
      waitingForSlot = true;
      long nanos = max.toNanos();
      while (!stopped) {
        if (slotFreed || !full.getAsBoolean()) {
          return Wake.SLOT;
        }
        if (nanos <= 0) {
          return Wake.TIMEOUT;
        }
        nanos = changed.awaitNanos(nanos);
      }
      return Wake.STOPPED;
    } finally {
      waitingForSlot = false;
      slotFreed = false;
      lock.unlock();
    }
  }

  /** Sleeps {@code pause} (after an error), ending early only on {@link #stop()}. */
  public void pause(Duration pause) throws InterruptedException {
    lock.lock();
    try {
      long nanos = pause.toNanos();
      while (!stopped && nanos > 0) {
        nanos = changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** A job is due at {@code dueAt}: wakes the wait if that is sooner than what it waits for. */
  public void announce(Instant dueAt) {
    lock.lock();
    try {
      if (announced == null || dueAt.isBefore(announced)) {
        announced = dueAt;
      }
      if (target != null && dueAt.isBefore(target)) {
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A handler finished; wakes the loop if it waits for a free slot. Cheap when it does not. */
  public void slotFreed() {
    if (!waitingForSlot) {
      return;
    }
    lock.lock();
    try {
      slotFreed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Ends every wait, now and later. */
  public void stop() {
    stopped = true;
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean isStopped() {
    return stopped;
  }

  /** Whether the loop is waiting for a due time now (for tests and diagnostics). */
  public boolean isWaitingForDue() {
    lock.lock();
    try {
      return target != null;
    } finally {
      lock.unlock();
    }
  }
}
