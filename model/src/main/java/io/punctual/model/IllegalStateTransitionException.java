package io.punctual.model;

/** Thrown when code asks for a transition the state machine does not have. */
public final class IllegalStateTransitionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public IllegalStateTransitionException(JobState current, JobState target) {
    super("no transition leads from " + current + " to " + target);
  }
}
