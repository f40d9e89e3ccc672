package io.punctual.faults;

import io.punctual.api.jobs.AfterCommitHook;

/** {@link CrashPoint#AFTER_COMMIT} at the API's seam between a submit's commit and its enqueue. */
public final class CrashAfterCommit implements AfterCommitHook {
  @Override
  public void afterCommit() {
    CrashPoint.AFTER_COMMIT.reached();
  }
}
