package io.punctual.deploy.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

/** Time measured by the network-fault tests, in seconds to a tenth. */
final class Timing {
  private Timing() {}

  /** A condition that may throw (a query against a server that is away). */
  interface Condition {
    boolean met() throws Exception;
  }

  /**
   * Seconds until the condition holds (polled every 100 ms), or null if not within {@code atMost}.
   */
  static Double awaitSeconds(Condition condition, Duration atMost) {
    long start = System.nanoTime();
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(condition::met);
      return seconds(System.nanoTime() - start);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return null;
    }
  }

  static double seconds(long nanos) {
    return Math.round(nanos / 1e8) / 10.0;
  }
}
