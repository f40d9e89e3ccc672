package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A job another one waits for: a stored job by {@code id}, or (in a workflow) a step by {@code
 * ref}. A required dependency must SUCCEED (otherwise the waiting job is SKIPPED); an optional one
 * only has to end.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Dependency(String id, String ref, boolean required) {
  /** A required dependency on a stored job. */
  public static Dependency on(String jobId) {
    return new Dependency(jobId, null, true);
  }

  /** A required dependency on the step {@code ref} of the same workflow. */
  public static Dependency onStep(String ref) {
    return new Dependency(null, ref, true);
  }

  /** This dependency, only required to end (whatever its outcome). */
  public Dependency optional() {
    return new Dependency(id, ref, false);
  }
}
