package io.punctual.api.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Runs after a submit's transaction committed and before its jobs are enqueued in Redis: the seam
 * where the fault-injection suite makes the API die at the worst moment. Production installs none
 * ({@link #NONE}); the dev distribution carries one (module {@code faults}) that does nothing
 * unless its environment variable arms it.
 */
public interface AfterCommitHook {
  /** Does nothing. */
  AfterCommitHook NONE = () -> {};

  void afterCommit();

  /** Every hook on the class path ({@link ServiceLoader}), in turn; {@link #NONE} when none is. */
  static AfterCommitHook installed() {
    List<AfterCommitHook> hooks = new ArrayList<>();
    ServiceLoader.load(AfterCommitHook.class).forEach(hooks::add);
    if (hooks.isEmpty()) {
      return NONE;
    }
    if (hooks.size() == 1) {
      return hooks.get(0);
    }
    return () -> hooks.forEach(AfterCommitHook::afterCommit);
  }
}
