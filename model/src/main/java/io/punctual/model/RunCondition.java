package io.punctual.model;

import java.util.Locale;
import java.util.Optional;

/**
 * When a job that waits for another one (its parent, or a dependency) may run, judged once that
 * other job has ended. A required dependency is {@link #ON_SUCCESS}; an optional one is {@link
 * #ALWAYS}.
 */
public enum RunCondition {
  /** Only if the other job SUCCEEDED; it ending FAILED, CANCELLED or SKIPPED skips this one. */
  ON_SUCCESS,
  /** Only if the other job FAILED (e.g. an alert); any other end skips this one. */
  ON_FAILURE,
  /** Whatever way the other job ended. */
  ALWAYS;

  /** The lower-case name used in JSON and in the database. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<RunCondition> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    for (RunCondition c : values()) {
      if (c.wireName().equals(value.trim().toLowerCase(Locale.ROOT))) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** Whether the condition holds once the other job is in {@code state}; false while not final. */
  public boolean heldBy(JobState state) {
    if (!state.isTerminal()) {
      return false;
    }
    return switch (this) {
      case ON_SUCCESS -> state == JobState.SUCCEEDED;
      case ON_FAILURE -> state == JobState.FAILED;
      case ALWAYS -> true;
    };
  }

  /** Whether the other job being in {@code state} rules this condition out for good. */
  public boolean ruledOutBy(JobState state) {
    return state.isTerminal() && !heldBy(state);
  }
}
