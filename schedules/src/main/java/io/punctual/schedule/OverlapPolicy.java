package io.punctual.schedule;

/** Whether an occurrence may start while the schedule's previous run is still going. */
public enum OverlapPolicy {
  /**
   * Every occurrence runs, whatever the previous one is doing (the default): occurrences are
   * materialised ahead of time, so a failing or slow run never holds the next one back.
   */
  ALLOW,
  /**
   * An occurrence whose fire time comes while the previous run is still PENDING or RUNNING (or
   * waiting for a retry) is skipped and recorded as such. These occurrences are materialised only
   * once due, when the planner can tell.
   */
  SKIP
}
