package io.punctual.model;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * What the follow-up jobs one attempt spawns must respect, whatever the database holds: each is a
 * child of the job that spawned it (so it names no parent, and does not wait for that job again),
 * may wait only for an earlier follow-up of the same attempt (so they never wait for each other in
 * a cycle) and for no job twice, and no two of them share an idempotency key. Checked by the worker
 * when a handler spawns one, and by the store again before it stores them.
 */
public final class FollowUpRules {
  private FollowUpRules() {}

  /**
   * Why follow-up {@code i} of {@code spawned} (the follow-ups of the attempt of job {@code
   * spawnerId}, in order) breaks a rule, or null when it keeps them all.
   */
  public static String problem(UUID spawnerId, List<NewJob> spawned, int i) {
    NewJob job = spawned.get(i);
    String key = job.idempotencyKey();
    if (key != null) {
      for (int k = 0; k < i; k++) {
        NewJob earlier = spawned.get(k);
        if (key.equals(earlier.idempotencyKey()) && earlier.namespace().equals(job.namespace())) {
          return "follow-up " + i + " repeats the idempotencyKey '" + key + "' of follow-up " + k;
        }
      }
    }
    Set<Object> named = new HashSet<>();
    for (Upstream u : job.links().upstream()) {
      if (u.parent()) {
        return "follow-up " + i + " names a parent: its parent is the job that spawned it";
      }
      if (u.inBatch() && u.index() >= i) {
        return "follow-up "
            + i
            + " waits for follow-up "
            + u.index()
            + ": a follow-up may wait only for an earlier one";
      }
      if (!u.inBatch() && Objects.equals(u.jobId(), spawnerId)) {
        return "follow-up " + i + " waits for the job that spawned it, which is already its parent";
      }
      if (!named.add(u.inBatch() ? (Object) u.index() : u.jobId())) {
        return "follow-up " + i + " waits for the same job twice";
      }
    }
    return null;
  }

  /** The first problem of the follow-ups {@code spawned} of job {@code spawnerId}, or null. */
  public static String problem(UUID spawnerId, List<NewJob> spawned) {
    for (int i = 0; i < spawned.size(); i++) {
      String problem = problem(spawnerId, spawned, i);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }
}
