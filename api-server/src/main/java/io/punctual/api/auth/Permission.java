package io.punctual.api.auth;

/**
 * What a route needs from the key that calls it. Each route declares one with {@link Requires};
 * each {@link Role} holds a fixed set of them.
 */
public enum Permission {
  /** Read jobs, executions, workflows, schedules and workers of the key's namespaces. */
  READ,
  /** Submit jobs and workflows into the key's namespaces. */
  SUBMIT,
  /** Steer what exists: cancel and retry jobs, pause, edit and trigger schedules and workflows. */
  OPERATE,
  /** Run jobs over the worker protocol: register, claim, heartbeat and complete attempts. */
  WORK,
  /** Keys, namespaces, quotas and the audit log. */
  ADMIN
}
