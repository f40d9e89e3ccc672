package io.punctual.worker.claim;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * Where the claim loop waits between claims, without polling: until the next known due time, or
 * earlier when a job due sooner is announced ({@link #announce}), or — while slots are taken —
 * until enough of them are free ({@link #slotFreed}). Announcements that arrive while the loop is
 * busy are remembered for its next wait, so none is lost.
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

  /** Free slots the loop waits for; MAX_VALUE while it does not wait for any. */
  private volatile int slotsWanted = Integer.MAX_VALUE;

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

  /**
   * Waits until {@code free} reports at least {@code wanted} free slots, at most {@code max}; woken
   * by {@link #slotFreed(int)} only once that many are free, not on every slot.
   */
  public Wake awaitSlots(IntSupplier free, int wanted, Duration max) throws InterruptedException {
    lock.lock();
    try {
      slotsWanted = wanted;
      long nanos = max.toNanos();
      while (!stopped) {
        if (free.getAsInt() >= wanted) {
          return Wake.SLOT;
        }
        if (nanos <= 0) {
          return Wake.TIMEOUT;
        }
        nanos = changed.awaitNanos(nanos);
      }
      return Wake.STOPPED;
    } finally {
      slotsWanted = Integer.MAX_VALUE;
      lock.unlock();
    }
  }

  /**
   * Something a wait for slots depends on besides the free slots changed (a claim's confirmation
   * ended): wakes such a wait so that it checks again. Cheap when the loop waits for nothing.
   */
  public void recheckSlots() {
    if (slotsWanted == Integer.MAX_VALUE) {
      return; // no wait for slots in progress (one that starts checks its condition first)
    }
    wakeAll();
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

  /**
   * A handler finished and {@code free} slots are free now; wakes the loop if it waits for that
   * many. Cheap when it does not.
   */
  public void slotFreed(int free) {
    if (free < slotsWanted) {
      return;
    }
    wakeAll();
  }

  /** Ends every wait, now and later. */
  public void stop() {
    stopped = true;
    wakeAll();
  }

  /** Wakes every wait in progress, each to check its condition again. */
  private void wakeAll() {
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
