package io.punctual.planner.schedule;

/**
 * What happens to fire times missed while nothing planned them (every planner down, or PostgreSQL
 * unreachable) for longer than {@code planner.misfireThreshold}. Fire times that are late by less
 * than that are not misfires: they are materialised and run late.
 */
public enum MisfirePolicy {
  /** One catch-up run now for all the missed fire times together (the default). */
  FIRE_ONCE,
  /**
   * A run now for each missed fire time, the earliest first, at most {@code planner.fireAllCap}.
   */
  FIRE_ALL,
  /** No run for missed fire times; the schedule goes on with its next one. */
  SKIP
}
