package io.punctual.schedule;

/**
 * What happens to fire times missed while every planner was down (or PostgreSQL unreachable) for
 * longer than {@code planner.misfireThreshold}: those that came more than the threshold before the
 * planners came back. Other fire times are never misfires, however late a busy planner reaches
 * them: they are materialised and run late.
 */
public enum MisfirePolicy {
  /** One catch-up run now for all the missed fire times together (the default). */
  FIRE_ONCE,
  /**
   * A run now for each missed fire time, the earliest first, at most {@code planner.fireAllCap};
   * the first one beyond the cap is recorded as missed, the rest do not run.
   */
  FIRE_ALL,
  /** No run for missed fire times; the schedule goes on with its next one. */
  SKIP
}
