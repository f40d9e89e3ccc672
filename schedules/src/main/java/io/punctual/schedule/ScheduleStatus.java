package io.punctual.schedule;

/** Whether the planner materialises a schedule's occurrences. */
public enum ScheduleStatus {
  /** Occurrences are materialised ahead of time and run. */
  ACTIVE,
  /** Nothing new is materialised; occurrences not started when it was paused were cancelled. */
  PAUSED
}
