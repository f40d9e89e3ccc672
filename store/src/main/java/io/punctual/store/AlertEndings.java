package io.punctual.store;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.store.JobTransitions.Rescue;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertOutbox.Ending;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The ended attempts of a finish or a rescue that a watched kind of alert event could match, for
 * {@link io.punctual.store.alert.AlertOutbox#afterEnded}: none when no rule watches such a kind, so
 * that without rules the steps run no statement more.
 */
final class AlertEndings {
  private AlertEndings() {}

  /**
   * The applied completions that a watched kind could match: with job_failed or timed_out watched
   * also the successes (they may clear an incident of their type).
   */
  static List<Ending> finished(
      Set<AlertEvent> watched, List<Completion> completions, Set<UUID> applied) {
    boolean failed = watched.contains(AlertEvent.JOB_FAILED);
    boolean timedOut = watched.contains(AlertEvent.TIMED_OUT);
    boolean duration = watched.contains(AlertEvent.DURATION_OVER);
    if (!failed && !timedOut && !duration) {
      return List.of();
    }
    List<Ending> out = new ArrayList<>();
    for (Completion c : completions) {
      boolean isFailed = c.nextState() == JobState.FAILED;
      boolean isTimedOut = c.executionStatus() == ExecutionStatus.TIMED_OUT;
      boolean isSucceeded =
          c.nextState() == JobState.SUCCEEDED && c.executionStatus() == ExecutionStatus.SUCCEEDED;
      if (applied.contains(c.jobId())
          && (duration
              || (failed && isFailed)
              || (timedOut && isTimedOut)
              || ((failed || timedOut) && isSucceeded))) {
        out.add(
            new Ending(
                c.jobId(),
                c.attempt(),
                isFailed,
                isSucceeded,
                c.executionStatus().name(),
                c.durationMs(),
                c.error()));
      }
    }
    return out;
  }

  /** The applied rescues that a watched kind could match (attempts_rescued, job_failed). */
  static List<Ending> rescued(Set<AlertEvent> watched, List<Rescue> rescues, Set<UUID> applied) {
    boolean failed = watched.contains(AlertEvent.JOB_FAILED);
    boolean rescued = watched.contains(AlertEvent.ATTEMPTS_RESCUED);
    List<Ending> out = new ArrayList<>();
    for (Rescue r : rescues) {
      boolean isFailed = r.nextState() == JobState.FAILED;
      if (applied.contains(r.jobId()) && (rescued || (failed && isFailed))) {
        out.add(new Ending(r.jobId(), r.attempt(), isFailed, false, "LOST", -1, r.error()));
      }
    }
    return out;
  }
}
