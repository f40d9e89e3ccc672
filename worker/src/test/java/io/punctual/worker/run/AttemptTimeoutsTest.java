package io.punctual.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AttemptTimeoutsTest {
  private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
  private final RunningAttempts running = new RunningAttempts();
  private final List<RunningAttempt> fired = new CopyOnWriteArrayList<>();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AttemptTimeouts timeouts =
      new AttemptTimeouts(
          timers,
          running,
          a -> {
            a.stop(StopReason.TIMED_OUT);
            fired.add(a);
          },
          nanos::get);

  AttemptTimeoutsTest() {
    timers.setRemoveOnCancelPolicy(true);
  }

  @AfterEach
  void stop() {
    timers.shutdownNow();
  }

  private RunningAttempt attempt() {
    RunningAttempt a =
        new RunningAttempt(TestJobs.running("t", "{}", 1, 3), Instant.EPOCH, null, Duration.ZERO);
    running.add(a);
    return a;
  }

  @Test
  void aTimeoutWithinTheHorizonIsArmedAtTheStartAndFiresOnTime() throws Exception {
    RunningAttempt a = attempt();
    long started = System.nanoTime();
    timeouts.started(a, Duration.ofMillis(200));

    assertThat(a.timerArmed()).isTrue();
    assertThat(timers.getQueue()).hasSize(1);
    waitUntilFired(1);
    assertThat(fired).containsExactly(a);
    assertThat(a.stopReason()).isEqualTo(StopReason.TIMED_OUT);
    assertThat(System.nanoTime() - started)
        .isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
  }

  @Test
  void aDistantTimeoutIsArmedOnlyBySweepsOnceItComesWithinTheHorizon() throws Exception {
    RunningAttempt a = attempt();
    timeouts.started(a, Duration.ofHours(1));
    assertThat(a.timerArmed()).isFalse();
    assertThat(timers.getQueue()).isEmpty();

    // A sweep while the timeout is still further away than the horizon arms nothing.
    nanos.addAndGet(Duration.ofHours(1).toNanos() - AttemptTimeouts.HORIZON_NANOS - 1);
    timeouts.runOnce();
    assertThat(timers.getQueue()).isEmpty();

    // Within the horizon: armed, with the delay left until the timeout (not the whole horizon).
    nanos.addAndGet(AttemptTimeouts.HORIZON_NANOS - Duration.ofMillis(100).toNanos() + 1);
    timeouts.runOnce();
    assertThat(a.timerArmed()).isTrue();
    assertThat(timers.getQueue()).hasSize(1);
    long delay =
        timers.getQueue().peek() instanceof java.util.concurrent.Delayed d
            ? d.getDelay(TimeUnit.MILLISECONDS)
            : -1;
    assertThat(delay).isBetween(0L, 100L);
    // A second sweep does not arm a second timer.
    timeouts.runOnce();
    assertThat(timers.getQueue()).hasSize(1);
    waitUntilFired(1);
    assertThat(fired).containsExactly(a);
  }

  @Test
  void aSweepThatComesLateFiresTheTimerAtOnce() throws Exception {
    RunningAttempt a = attempt();
    timeouts.started(a, Duration.ofMinutes(5));
    nanos.addAndGet(Duration.ofMinutes(6).toNanos());
    timeouts.runOnce();
    waitUntilFired(1);
    assertThat(a.stopReason()).isEqualTo(StopReason.TIMED_OUT);
  }

  @Test
  void anEndedAttemptsTimerIsCancelledAndNoLaterSweepArmsOne() throws Exception {
    RunningAttempt near = attempt();
    RunningAttempt distant =
        new RunningAttempt(TestJobs.running("t", "{}", 1, 3), Instant.EPOCH, null, Duration.ZERO);
    running.add(distant);
    timeouts.started(near, Duration.ofMillis(300));
    timeouts.started(distant, Duration.ofMinutes(10));
    assertThat(timers.getQueue()).hasSize(1);

    timeouts.ended(near);
    assertThat(near.timerArmed()).isFalse();
    assertThat(timers.getQueue()).isEmpty();

    // The handler returned but the attempt is still in `running` (its result on its way): a
    // sweep past its timeout arms nothing, so nothing stops an attempt that has ended.
    timeouts.ended(distant);
    nanos.addAndGet(Duration.ofMinutes(11).toNanos());
    timeouts.runOnce();
    assertThat(timers.getQueue()).isEmpty();
    Thread.sleep(400);
    assertThat(fired).isEmpty();
    assertThat(near.stopReason()).isNull();
    assertThat(distant.stopReason()).isNull();
  }

  @Test
  void anAttemptWithoutATimeoutGetsNoTimer() {
    RunningAttempt a = attempt();
    timeouts.started(a, null);
    nanos.addAndGet(Duration.ofDays(365).toNanos());
    timeouts.runOnce();
    assertThat(a.timerArmed()).isFalse();
    assertThat(timers.getQueue()).isEmpty();
  }

  private void waitUntilFired(int n) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (fired.size() < n && System.nanoTime() < until) {
      Thread.sleep(5);
    }
  }
}
