package io.punctual.faults;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Places where the fault-injection suite makes a process die at the worst moment, the way a {@code
 * kill -9} could. A point is armed by an environment variable holding a count N: the N-th time the
 * point is reached the process halts at once (no shutdown hooks, no cleanup) with exit status
 * {@link #EXIT_STATUS}. Unarmed (the variable unset, as everywhere but in that suite) a point costs
 * one volatile read.
 */
@SuppressWarnings("ImmutableEnumChecker") // counting how often a point is reached is its purpose
public enum CrashPoint {
  /** The API committed a submit to PostgreSQL and has not enqueued it in Redis yet. */
  AFTER_COMMIT("PUNCTUAL_CRASH_AFTER_COMMIT");

  public static final int EXIT_STATUS = 86;

  private final String variable;
  private final int armedAt;
  private final AtomicInteger reached = new AtomicInteger();

  CrashPoint(String variable) {
    this.variable = variable;
    String value = System.getenv(variable);
    int at = 0;
    if (value != null && !value.isBlank()) {
      at = Integer.parseInt(value.trim());
    }
    this.armedAt = at;
  }

  /** The environment variable that arms this point. */
  public String variable() {
    return variable;
  }

  /** Halts the process if this is the armed occurrence of the point. */
  public void reached() {
    if (armedAt > 0 && reached.incrementAndGet() == armedAt) {
      System.err.println("crash point " + name() + " reached (" + variable + "=" + armedAt + ")");
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_STATUS);
    }
  }
}
