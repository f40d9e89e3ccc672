package io.punctual.worker.run;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The attempts' timeout timers, armed only when they are near. Most attempts end long before their
 * timeout (an hour by default, {@code worker.defaultTimeout}), so a timer armed at every start and
 * cancelled at every end was work done per job for nothing: a task allocated, put into and taken
 * out of the timer queue under its lock. Here an attempt whose timeout fires within {@link
 * #HORIZON_NANOS} of its start gets its timer at once; the others get theirs from {@link
 * #runOnce()}, which the worker runs every {@link #SWEEP} and which arms the timers of running
 * attempts whose timeout is now within the horizon. The horizon is twice the sweep's period, so
 * each timer is armed at least one period before it fires and fires on time (unless the sweep
 * itself runs more than a period late: then the timer fires as soon as it is armed). Times are
 * {@link System#nanoTime()}, as the timers' own delays are, counted from the handler's start.
 */
public final class AttemptTimeouts {
  /** How often {@link #runOnce()} runs. */
  public static final Duration SWEEP = Duration.ofSeconds(1);

  /** A timer is armed once its timeout is at most this far away. */
  static final long HORIZON_NANOS = 2 * SWEEP.toNanos();

  private final ScheduledExecutorService timers;
  private final RunningAttempts running;
  private final Consumer<RunningAttempt> timedOut;
  private final LongSupplier nanos;

  /**
   * @param timedOut what a timer does when it fires (stops the attempt)
   */
  public AttemptTimeouts(
      ScheduledExecutorService timers, RunningAttempts running, Consumer<RunningAttempt> timedOut) {
    this(timers, running, timedOut, System::nanoTime);
  }

  AttemptTimeouts(
      ScheduledExecutorService timers,
      RunningAttempts running,
      Consumer<RunningAttempt> timedOut,
      LongSupplier nanos) {
    this.timers = timers;
    this.running = running;
    this.timedOut = timedOut;
    this.nanos = nanos;
  }

  /** The handler of {@code attempt} starts now with {@code timeout} (null: none). */
  void started(RunningAttempt attempt, Duration timeout) {
    if (timeout == null) {
      return;
    }
    long now = nanos.getAsLong();
    attempt.timeoutAt(timeout, now + timeout.toNanos());
    armIfNear(attempt, now);
  }

  /** The handler of {@code attempt} returned: its timer, if armed, is cancelled; none is armed. */
  void ended(RunningAttempt attempt) {
    attempt.closeTimer();
  }

  /** Arms the timers of the running attempts whose timeout is now within the horizon. */
  public void runOnce() {
    long now = nanos.getAsLong();
    running.forEach(attempt -> armIfNear(attempt, now));
  }

  private void armIfNear(RunningAttempt attempt, long now) {
    long at = attempt.timeoutAtNanos();
    if (at == 0) {
      return;
    }
    long delay = at - now;
    if (delay <= HORIZON_NANOS) {
      attempt.armTimer(
          () ->
              timers.schedule(
                  () -> timedOut.accept(attempt), Math.max(0, delay), TimeUnit.NANOSECONDS));
    }
  }
}
