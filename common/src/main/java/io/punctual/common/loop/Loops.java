package io.punctual.common.loop;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** What the roles' background loops (worker, reaper, alerter) share. */
public final class Loops {
  /** How long a stop waits for a pass under way to see its interrupt and end. */
  private static final long STOP_WAIT_SECONDS = 10;

  private Loops() {}

  /**
   * Interrupts the passes under way and waits up to 10 s for them to end; an interrupt of the
   * caller ends the wait and is kept.
   */
  public static void stopNow(ExecutorService executor) {
    executor.shutdownNow();
    try {
      executor.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
